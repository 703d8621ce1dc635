"""``kgraph device describe [--device SUBSTR] --out DIR`` and ``kgraph device from-spec --name N
--copy-bw-gbs B --fp32-gflops F [...] --out DIR``: make a device descriptor (``DIR/device.json``) for
``kgraph estimate --device DIR`` and campaigns. ``kgraph device check FILE`` validates one.
Fields and defaults: docs/DEVICES.md.
"""
from __future__ import annotations

import json

from kgraph.errors import UsageError


def add_arguments(parser) -> None:
    sub = parser.add_subparsers(dest="action", metavar="ACTION")
    p = sub.add_parser("describe", help="measure an OpenCL device's roofline (a few seconds) and save device.json")
    p.add_argument("--device", help="substring of the device id, platform or device name (default: first GPU, "
                                    "else the first device)")
    p.add_argument("--out", required=True, metavar="DIR", help="folder to write device.json into")
    p.add_argument("--json", action="store_true", help="print the descriptor")
    p = sub.add_parser("from-spec", help="make device.json from spec-sheet numbers")
    p.add_argument("--name", required=True, help="device name, e.g. 'NVIDIA RTX 4090'")
    p.add_argument("--copy-bw-gbs", type=float, required=True, help="memory bandwidth in GB/s (a copy achieves ~90%%"
                                                                     " of the sheet's peak)")
    p.add_argument("--fp32-gflops", type=float, required=True, help="fp32 peak in GFLOP/s (FMA = 2 FLOPs)")
    p.add_argument("--fp64-gflops", type=float, help="fp64 peak in GFLOP/s (default: fp32 / 2; 0: no fp64)")
    p.add_argument("--local-bw-gbs", type=float, help="shared/local memory bandwidth in GB/s (default: GPU 5x, "
                                                      "CPU 1x the copy bandwidth)")
    p.add_argument("--launch-overhead-us", type=float, help="kernel launch overhead in us (default: GPU 5, CPU 1)")
    p.add_argument("--type", dest="device_type", choices=("GPU", "CPU"), default="GPU", help="device type")
    p.add_argument("--vendor", default="", help="vendor name")
    p.add_argument("--device-id", help="dataset/device id (default: a slug of vendor and name)")
    p.add_argument("--compute-units", type=int, help="SMs / CUs / cores")
    p.add_argument("--clock-mhz", type=float, help="boost clock in MHz")
    p.add_argument("--memory-gb", type=float, help="device memory in GiB")
    p.add_argument("--local-mem-kb", type=float, help="shared/local memory per work-group in KiB")
    p.add_argument("--max-work-group-size", type=int, help="threads per block / work-group")
    p.add_argument("--cache-mb", type=float, help="L2 (global memory cache) in MiB")
    p.add_argument("--llc-mb", type=float, help="last-level cache in MiB, when larger than --cache-mb")
    p.add_argument("--out", required=True, metavar="DIR", help="folder to write device.json into")
    p.add_argument("--json", action="store_true", help="print the descriptor")
    p = sub.add_parser("check", help="validate a device.json (or its folder)")
    p.add_argument("path", help="device.json or a folder holding one")


def _bytes(value, scale: int, option: str):
    if value is None:
        return None
    if not value > 0:
        raise UsageError(f"{option} {value}: must be positive")
    return int(round(value * scale))


def run(args) -> int:
    from kgraph.data.harness.descriptor import (
        descriptor_from_spec,
        load_descriptor,
        measure_descriptor,
        save_descriptor,
        validate_descriptor,
    )
    from kgraph.errors import InputError

    if args.action is None:
        raise UsageError("kgraph device: give an action: describe, from-spec or check")
    if args.action == "check":
        d = load_descriptor(args.path)
        print(f"{args.path}: ok ({d['device_id']}, {d['type']}, copy {d['roofline']['copy_bw_gbs']} GB/s, "
              f"fp32 {d['roofline']['fp32_gflops']} GFLOP/s)")
        return 0
    if args.action == "describe":
        from kgraph.data.harness.devices import pick_device

        info = pick_device(args.device)
        descriptor = validate_descriptor(measure_descriptor(info), f"measured descriptor of {info.device_id}")
    else:
        try:
            descriptor = descriptor_from_spec(
                args.name, args.copy_bw_gbs, args.fp32_gflops, fp64_gflops=args.fp64_gflops,
                local_bw_gbs=args.local_bw_gbs, launch_overhead_us=args.launch_overhead_us,
                device_type=args.device_type, vendor=args.vendor, device_id=args.device_id,
                compute_units=args.compute_units, max_clock_mhz=args.clock_mhz,
                global_mem_bytes=_bytes(args.memory_gb, 2**30, "--memory-gb"),
                local_mem_bytes=_bytes(args.local_mem_kb, 2**10, "--local-mem-kb"),
                max_work_group_size=args.max_work_group_size,
                global_cache_bytes=_bytes(args.cache_mb, 2**20, "--cache-mb"),
                llc_bytes=_bytes(args.llc_mb, 2**20, "--llc-mb"))
        except InputError as exc:  # a spec value the validation rejects: name the option
            raise UsageError(_option_message(str(exc))) from None
    path = save_descriptor(descriptor, args.out)
    if args.json:
        print(json.dumps(descriptor, indent=2, sort_keys=True))
    else:
        r = descriptor["roofline"]
        print(f"wrote {path}: {descriptor['device_id']} ({descriptor['type']}), copy {r['copy_bw_gbs']:.1f} GB/s, "
              f"fp32 {r['fp32_gflops']:.1f} GFLOP/s, fp64 {r['fp64_gflops']:.1f} GFLOP/s, local "
              f"{r['local_bw_gbs']:.1f} GB/s, launch {r['launch_overhead_us']:.2f} us")
        if descriptor.get("spec_defaults"):
            print(f"  defaulted (docs/DEVICES.md): {', '.join(descriptor['spec_defaults'])}")
    return 0


_OPTIONS = {"roofline.copy_bw_gbs": "--copy-bw-gbs", "roofline.fp32_gflops": "--fp32-gflops",
            "roofline.fp64_gflops": "--fp64-gflops", "roofline.local_bw_gbs": "--local-bw-gbs",
            "roofline.launch_overhead_us": "--launch-overhead-us", "compute_units": "--compute-units",
            "max_clock_mhz": "--clock-mhz", "max_work_group_size": "--max-work-group-size", "name": "--name",
            "device_id": "--device-id"}


def _option_message(message: str) -> str:
    for field, option in _OPTIONS.items():
        if f"'{field}'" in message:
            return f"{option}: {message}"
    return message
