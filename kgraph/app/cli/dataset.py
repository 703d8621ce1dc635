"""``kgraph dataset``: build (campaign), validate, repair, fill missing counts, import and describe measured
datasets. Every action answers a damaged folder (unreadable or missing shard, bad manifest, orphan shard,
uncommitted rows) with what is wrong and how to repair it (``kgraph dataset repair DIR``)."""
from __future__ import annotations

import json
from pathlib import Path

from kgraph.errors import UsageError


def add_arguments(parser) -> None:
    from kgraph.data.harness import campaign

    sub = parser.add_subparsers(dest="action", metavar="ACTION")
    campaign.add_arguments(sub.add_parser("campaign", help="measure corpus kernels on a device (resumable)"))
    p = sub.add_parser("validate", help="check a dataset folder; exit 1 with the list of problems")
    p.add_argument("dir", help="dataset folder (data/datasets/<device_id>)")
    p = sub.add_parser("repair", help="rebuild a damaged folder's manifest from its intact shards (damaged "
                                      "files are moved to DIR/damaged/, nothing is deleted)")
    p.add_argument("dir", help="dataset folder")
    p = sub.add_parser("compact", help="rewrite each folder's committed shards as one file (same rows; fewer "
                                       "files and bytes in the repository)")
    p.add_argument("dirs", nargs="+", help="dataset folders")
    from kgraph.data.harness.fill_counts import add_fill_arguments

    add_fill_arguments(sub.add_parser(
        "fill-counts", help="counts for ok rows without them: from other datasets (--from), else an "
                            "instrumented run on a local device (resumable)"))
    p = sub.add_parser("mark-elided", help="give status work_elided to the ok rows of kernels whose counted work "
                       "ran faster than the device's peak allows (the compiler removed it)")
    p.add_argument("dirs", nargs="+", metavar="DIR", help="dataset folders")
    p.add_argument("--dead-inputs", action="store_true", help="also the generated kernels with an input that never "
                   "changes their result (kgraph.data.generator.dead_inputs; each kernel checked once for all DIRs)")
    p.add_argument("--jobs", type=int, default=1, help="processes for --dead-inputs (default 1)")
    p.add_argument("--checked", metavar="JSON", help="--dead-inputs: kernels already checked ({kernel: [dead "
                   "inputs]}), read if it exists and rewritten with the kernels checked now")
    p = sub.add_parser("import", help="turn a CSV/parquet table of measurements into a dataset")
    p.add_argument("file", help="CSV or parquet: source, kernel_name, global, [local], [arguments], device, time_*")
    p.add_argument("--out", required=True, help="dataset folder to write")
    p.add_argument("--descriptor", help="device.json of the device, written beside the rows (the derived "
                                        "targets are computed from it on read)")
    p = sub.add_parser("merge", help="copy the rows of folders of the same device into another (keys it lacks; "
                                     "its device.json is kept)")
    p.add_argument("dirs", nargs="+", help="dataset folders to copy from")
    p.add_argument("--into", required=True, help="dataset folder to copy into (must exist)")
    p = sub.add_parser("relabel", help="copy a folder's rows under another device id (a host whose descriptor "
                                       "differs from the others of its GPU model; keys recomputed)")
    p.add_argument("dir", help="dataset folder to copy from (left as it is)")
    p.add_argument("--device-id", required=True, help="the new device id")
    p.add_argument("--out", required=True, help="new dataset folder to write (must not exist)")
    p.add_argument("--descriptor-of", metavar="DIR", help="describe the rows by DIR's device.json (a folder of "
                   "--device-id), the source's rooflines kept as uncounted_rooflines")
    p = sub.add_parser("describe", help="counts per family/status and CV distribution per runtime decade")
    p.add_argument("dirs", nargs="+", help="dataset folders")
    p.add_argument("--json", action="store_true", help="print JSON instead of markdown")


def run(args) -> int:
    if args.action is None:
        raise UsageError("dataset: choose an action: campaign, validate, repair, compact, fill-counts, "
                         "mark-elided, import, merge, relabel or describe")
    if args.action == "campaign":
        from kgraph.data.harness import campaign

        return campaign.run(args)
    if args.action == "validate":
        from kgraph.data.harness.validate import validate_dataset

        problems = validate_dataset(args.dir)
        for line in problems:
            print(f"{args.dir}: {line}")
        if not problems:
            print(f"{args.dir}: valid")
        return 1 if problems else 0
    if args.action == "repair":
        from kgraph.data.harness.repair import repair_dataset

        for line in repair_dataset(args.dir):
            print(f"{args.dir}: {line}")
        print(f"{args.dir}: check the result with `kgraph dataset validate {args.dir}`")
        return 0
    if args.action == "compact":
        from kgraph.data.harness.store import DatasetStore, read_manifest

        for directory in args.dirs:
            read_manifest(directory)  # a folder that is not a dataset is refused, never created
            with DatasetStore(directory) as store:
                before, rows = store.compact()
            print(f"{directory}: {rows} row(s), {before} shard(s) -> {min(before, 1)}")
        return 0
    if args.action == "fill-counts":
        from kgraph.data.harness.fill_counts import fill_counts, options_from_args

        report = fill_counts(options_from_args(args))
        for line in report.lines():
            print(line)
        return 0
    if args.action == "mark-elided":
        from kgraph.data.harness.elided import mark_elided

        if args.jobs < 1:
            raise UsageError(f"--jobs {args.jobs}: must be 1 or more")
        for directory in args.dirs:
            rows, kernels = mark_elided(directory)
            print(f"{directory}: {rows} ok row(s) of {len(kernels)} kernel(s) marked work_elided")
        if args.dead_inputs:
            _mark_dead_inputs(args.dirs, args.jobs, args.checked)
        return 0
    if args.action == "merge":
        from kgraph.data.harness.merge import merge_datasets

        for line in merge_datasets(args.into, args.dirs):
            print(line)
        return 0
    if args.action == "relabel":
        from kgraph.data.harness.relabel import relabel_dataset

        print(relabel_dataset(args.dir, args.out, args.device_id, args.descriptor_of))
        return 0
    if args.action == "import":
        from kgraph.data.harness.importer import import_table

        written = import_table(args.file, args.out, args.descriptor)
        for device_id, n in written.items():
            print(f"{device_id}: {n} rows imported into {args.out}")
        return 0
    import sys

    from kgraph.data.harness.describe import describe_dataset, to_markdown
    from kgraph.data.harness.validate import folder_problems

    for directory in args.dirs:
        summary = describe_dataset(directory)
        for line in folder_problems(directory)[1]:  # the rows are readable; say what else is wrong
            print(f"{directory}: warning: {line}", file=sys.stderr)
        print(json.dumps(summary, indent=2) if args.json else to_markdown(summary, directory))
    return 0


def _mark_dead_inputs(dirs: list[str], jobs: int, checked_file: str | None) -> None:
    """``mark-elided --dead-inputs``: the generated kernels of ``dirs`` with a dead input, each checked once
    (and not again when ``checked_file`` holds it)."""
    from kgraph.data.generator.dead_inputs import DEAD_MESSAGE, dead_input_kernels
    from kgraph.data.harness.elided import mark_kernels
    from kgraph.data.harness.store import read_launches

    known: dict = {}
    if checked_file and Path(checked_file).exists():
        try:
            known = {k: tuple(v) for k, v in json.loads(Path(checked_file).read_text()).items()}
        except (ValueError, AttributeError, TypeError) as exc:
            raise UsageError(f"--checked {checked_file}: not a JSON object of kernel -> inputs ({exc})") from exc
    ok = {}
    for directory in dirs:
        frame = read_launches(directory)
        ok[directory] = {k for k in frame.loc[frame["status"] == "ok", "kernel_id"] if k.startswith("gen.")}
    generated = set().union(*ok.values())

    def keep(result: dict) -> None:  # after every chunk: an interrupted run resumes from the file
        known.update(result)
        if checked_file:
            Path(checked_file).write_text(json.dumps(dict(sorted(known.items())), indent=0))

    dead_input_kernels(sorted(generated - set(known)), jobs=jobs, progress=keep)
    messages = {k: DEAD_MESSAGE.format(names=", ".join(v)) for k, v in known.items() if v and k in generated}
    for directory in dirs:
        # a folder none of whose ok kernels has a dead input is not opened for writing
        rows = mark_kernels(directory, lambda frame: messages) if ok[directory] & set(messages) else 0
        print(f"{directory}: {rows} ok row(s) marked work_elided: an input that never changes the result "
              f"({len(messages)} of {len(generated)} generated kernels have one)")
