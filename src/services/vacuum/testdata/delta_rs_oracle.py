"""Test helper (run by delta_rs_oracle_test.cc): builds Delta tables with delta-rs and reports
what delta-rs itself does with them, so the C++ vacuum can be checked against a peer.

  build TABLE KIND  -> creates the table, prints JSON {"dry_run": [...paths...], "rows": N}
  check TABLE       -> loads the table, prints JSON {"rows": N, "operations": [...history...]}
"""
import json
import os
import sys
import time

import pyarrow as pa
from deltalake import DeltaTable, write_deltalake


def batch(start, n, part=None):
    data = {"id": list(range(start, start + n)), "v": [f"v{i}" for i in range(start, start + n)]}
    if part is not None:
        data["p"] = [part(i) for i in range(start, start + n)]
    return pa.table(data)


def build(path, kind):
    partitioned = kind == "partitioned"
    part = (lambda i: f"k{i % 3}") if partitioned else None
    by = ["p"] if partitioned else None
    write_deltalake(path, batch(0, 30, part), partition_by=by)
    write_deltalake(path, batch(30, 30, part), mode="append", partition_by=by)
    write_deltalake(path, batch(60, 30, part), mode="append", partition_by=by)
    dt = DeltaTable(path)
    dt.delete("id < 10")
    dt = DeltaTable(path)
    source = batch(25, 10, part)
    (dt.merge(source, predicate="t.id = s.id", source_alias="s", target_alias="t")
       .when_matched_update_all().when_not_matched_insert_all().execute())
    DeltaTable(path).optimize.compact()
    if kind == "overwrite":
        write_deltalake(path, batch(100, 20, part), mode="overwrite", partition_by=by)
        write_deltalake(path, batch(120, 20, part), mode="append", partition_by=by)
    # Untracked files delta-rs and we must both find (and hidden ones both must leave alone).
    with open(os.path.join(path, "orphan-untracked.parquet"), "wb") as f:
        f.write(b"x" * 123)
    os.makedirs(os.path.join(path, "_hidden_dir"), exist_ok=True)
    with open(os.path.join(path, "_hidden_dir", "keep.parquet"), "wb") as f:
        f.write(b"x" * 5)
    time.sleep(0.05)
    dt = DeltaTable(path)
    dry = dt.vacuum(retention_hours=0, dry_run=True, enforce_retention_duration=False, full=True)
    print(json.dumps({"dry_run": sorted(dry), "rows": dt.to_pyarrow_table().num_rows}))


def check(path):
    dt = DeltaTable(path)
    ops = [h.get("operation") for h in dt.history()]
    print(json.dumps({"rows": dt.to_pyarrow_table().num_rows, "operations": ops}))


if __name__ == "__main__":
    if sys.argv[1] == "build":
        build(sys.argv[2], sys.argv[3])
    else:
        check(sys.argv[2])
    # Skip interpreter teardown: delta-rs' runtime threads sometimes abort the process there
    # ("terminate called without an active exception") after all the work is done.
    sys.stdout.flush()
    os._exit(0)
