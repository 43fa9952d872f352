"""``lakeshore index``: the table's indexes in Hudi's metadata table, and record lookups."""

from __future__ import annotations

import argparse
from typing import cast

import pyarrow as pa

from lakeshore.cli._common import CliTable, Output, add_json_flag, names_list
from lakeshore.errors import InvalidArgumentError
from lakeshore.table import Table

EPILOG = """\
examples:
  lakeshore index show ./trips                  the metadata table's partitions (indexes)
  lakeshore index lookup ./trips 7,42 --json    where the records with keys 7 and 42 live
  lakeshore index lookup ./txns Amazon,Uber --index secondary_index_merchant_idx
                                                the keys of the records with those merchants
  lakeshore index lookup ./t "a,b" " c " --verbatim
                                                keys holding a comma or edge spaces, taken whole
  lakeshore index build ./trips record_index    build the record index (and the files listing)
  lakeshore index build ./trips secondary_index_city --column city
                                                a secondary index: record keys by city
  lakeshore index drop ./trips record_index     drop it (readers stop trusting it first)

`show` lists what Hudi's metadata table (.hoodie/metadata) holds: the partitions built (files,
column_stats, bloom_filters, record_index, secondary_index_<name>, ...) and those still being
built. `lookup` answers from the record index when the table has one (Spark's
hoodie.metadata.record.index.enable), else from the latest snapshot; the output says which.
With --index it answers from a secondary index (Spark's CREATE INDEX ... ON t (column), or
`build NAME --column`): the record keys whose column holds the given values.
`build` makes the files partition (Hudi readers list the table through it), the record index,
the bloom filters, the column stats, or a secondary index on a column (its definition goes to
.hoodie/.index_defs/index.json, as Spark's CREATE INDEX writes it), from the completed commits;
every later write keeps them current. `drop` removes one
(any, also those Spark built); dropping files removes the whole metadata table.
"""


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Adds the ``index`` verb and its ``show``, ``lookup``, ``build`` and ``drop`` subcommands."""
    p = subparsers.add_parser(
        "index",
        help="show, build and drop a table's indexes, look records up",
        description="Indexes of a Hudi table (its metadata table), and record lookups.",
        epilog=EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    sub = p.add_subparsers(dest="index_command", metavar="COMMAND", required=True)
    show = sub.add_parser("show", help="the metadata table's partitions")
    show.add_argument("path", help="the table")
    add_json_flag(show)
    show.set_defaults(func=run_show)
    lookup = sub.add_parser("lookup", help="where records live, by key")
    lookup.add_argument("path", help="the table")
    lookup.add_argument(
        "keys",
        nargs="+",
        help="record keys (a single-field key), comma- or space-separated, spaces around each dropped (see "
        "--verbatim); with --index, column values",
    )
    lookup.add_argument(
        "--verbatim",
        action="store_true",
        help="take each KEY argument whole, exactly as given: for keys or values holding commas or edge spaces",
    )
    lookup.add_argument(
        "--index",
        metavar="NAME",
        help="look up by an indexed column instead: the secondary index NAME (secondary_index_<name>)",
    )
    add_json_flag(lookup)
    lookup.set_defaults(func=run_lookup)
    for verb, helptext, func in (
        ("build", "build an index (files, record_index, bloom_filters, column_stats, partition_stats)", run_build),
        ("drop", "drop an index", run_drop),
    ):
        cmd = sub.add_parser(verb, help=helptext)
        cmd.add_argument("path", help="the table")
        cmd.add_argument(
            "name",
            help="the metadata partition: files, record_index, bloom_filters, column_stats, partition_stats or "
            "secondary_index_<name> (drop: any)",
        )
        if verb == "build":
            cmd.add_argument("--column", help="the column a secondary index (secondary_index_<name>) is built on")
        add_json_flag(cmd)
        cmd.set_defaults(func=func)


def run_show(args: argparse.Namespace) -> int:
    """Prints the metadata table's partitions."""
    return _print_indexes(args, Table.open(args.path).indexes())


def run_build(args: argparse.Namespace) -> int:
    """Builds an index, then prints the metadata table's partitions."""
    return _print_indexes(args, Table.open(args.path).create_index(args.name, args.column))


def run_drop(args: argparse.Namespace) -> int:
    """Drops an index, then prints the metadata table's partitions."""
    return _print_indexes(args, Table.open(args.path).drop_index(args.name))


def _print_indexes(args: argparse.Namespace, result: dict[str, object]) -> int:
    out = Output(args.json)
    out.json(result)
    t = CliTable(title="indexes", show_header=False)
    t.add_row("metadata table", "yes" if result["metadata_table"] else "no")
    built = cast(list[str], result["partitions"])
    inflight = cast(list[str], result["inflight"])
    t.add_row("built", ", ".join(built) or "-")
    t.add_row("being built", ", ".join(inflight) or "-")
    out.print(t)
    return 0


def run_lookup(args: argparse.Namespace) -> int:
    """Prints where each key's record lives."""
    out = Output(args.json)
    table = Table.open(args.path)
    keys = list(args.keys) if args.verbatim else names_list(",".join(args.keys))
    if args.index is not None:
        if not args.index.strip():
            raise ValueError("--index needs the name of a secondary index (secondary_index_<name>)")
        return _lookup_secondary(out, table, args.index, keys)
    if len(table.record_key) != 1:
        raise ValueError(
            f"the table's record key has {len(table.record_key)} fields ({', '.join(table.record_key)}): "
            "`index lookup` takes single-field keys; look composite keys up with Table.lookup and tuples"
        )
    # As text: the core reads it as the key field's type (a time without a zone as UTC, as filters
    # and inputs are read).
    field = table.schema.field(table.record_key[0])
    try:
        found = table.lookup(pa.table({field.name: pa.array(keys, pa.string())}))
    except InvalidArgumentError as e:
        raise ValueError(f"lookup of keys {keys!r} in record key field '{field.name}' ({field.type}): {e}") from e
    method = (found.schema.metadata or {}).get(b"lookup.method", b"").decode()
    rows = found.to_pylist()
    out.json({"method": method, "locations": rows})
    t = CliTable(title=f"lookup ({method})")
    for column in ("record_key", "partition", "file_id"):
        t.add_column(column)
    for r in rows:
        t.add_row(r["record_key"], "-" if r["partition"] is None else r["partition"], r["file_id"] or "-")
    out.print(t)
    return 0


def _lookup_secondary(out: Output, table: Table, index: str, values: list[str]) -> int:
    """Prints the record keys whose indexed column holds one of `values`."""
    found = table.lookup_secondary(index, values)
    rows = found.to_pylist()
    out.json({"index": index, "matches": rows})
    t = CliTable(title=f"lookup ({index})")
    t.add_column("secondary_key")
    t.add_column("record_key")
    for r in rows:
        t.add_row("-" if r["secondary_key"] is None else r["secondary_key"], r["record_key"])
    out.print(t)
    return 0
