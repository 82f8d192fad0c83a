#!/usr/bin/env python3
"""The perf case catalogue: ResNet-50 v1.5 conv layers and BN shapes at batch 64.

One source for everything that names a perf case:
  * the spec files under specs/perf/ (generated from here: `cases.py --write-specs`,
    checked with `cases.py --check-specs`);
  * the case list the torch peers time (`cases.py --list SET --json`);
  * the work counts (FLOPs, minimum bytes) behind the roofline floors.

Standard library only (runs on CI and on the GPU machine alike).

Case ids are globally unique and are the [[case]] names in the specs, so a driver record
named "<spec>/<case id>" joins to the peers' records by its last path component.
"""
from __future__ import annotations

import argparse
import json
import sys
from dataclasses import dataclass, field, asdict
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
SPEC_DIR = REPO / "specs" / "perf"

BATCH = 64
DTYPES = ("fp16", "bf16", "fp32")
LAYOUTS = ("nhwc", "nchw")
ELEM_BYTES = {"fp32": 4, "fp16": 2, "bf16": 2}
PARAM_BYTES = 4  # BN parameters and statistics are fp32 whatever the data type (driver/problem.h)
BN_EPS = 1e-5
BN_EPS_TEXT = "1e-5"
BN_EXP_AVG = 0.1

# Timing and verification written into every perf spec (the peers use the same counts).
WARMUP = 10
ITERS = 50
VERIFY_SAMPLES = 4096


@dataclass(frozen=True)
class Layer:
    """One distinct ResNet-50 v1.5 conv: input C x H x W, K filters of R x R, stride, pad."""
    c: int
    k: int
    r: int
    h: int
    stride: int
    stage: str

    @property
    def pad(self) -> int:
        return self.r // 2

    @property
    def out_h(self) -> int:
        return (self.h + 2 * self.pad - self.r) // self.stride + 1

    @property
    def tag(self) -> str:
        s = f"{self.r}x{self.r}_c{self.c}_k{self.k}_{self.h}"
        return s + (f"s{self.stride}" if self.stride != 1 else "")

    def describe(self) -> str:
        s = f"{self.stage} {self.r}x{self.r} C{self.c}->K{self.k} {self.h}x{self.h}"
        return s + (f" s{self.stride}" if self.stride != 1 else "")

    @property
    def read_h(self) -> int:
        """Input rows (and, square, columns) that some output's window covers: all H, except
        where the stride steps over rows the filter never reaches (1x1 stride 2 reads every
        other row and column, a quarter of x)."""
        return len({p * self.stride - self.pad + r for p in range(self.out_h) for r in range(self.r)} &
                   set(range(self.h)))


# The 23 distinct conv layers of ResNet-50 v1.5 (stride 2 in the 3x3 conv of each stage's first
# bottleneck; the 1x1 projection shortcuts included), input 224x224.
LAYERS: tuple[Layer, ...] = (
    Layer(3, 64, 7, 224, 2, "conv1"),
    # conv2_x, 56x56
    Layer(64, 64, 1, 56, 1, "conv2"),
    Layer(64, 64, 3, 56, 1, "conv2"),
    Layer(64, 256, 1, 56, 1, "conv2"),     # block conv3 and the projection shortcut
    Layer(256, 64, 1, 56, 1, "conv2"),
    # conv3_x, 56 -> 28
    Layer(256, 128, 1, 56, 1, "conv3"),
    Layer(128, 128, 3, 56, 2, "conv3"),
    Layer(128, 512, 1, 28, 1, "conv3"),
    Layer(256, 512, 1, 56, 2, "conv3"),    # projection shortcut
    Layer(512, 128, 1, 28, 1, "conv3"),
    Layer(128, 128, 3, 28, 1, "conv3"),
    # conv4_x, 28 -> 14
    Layer(512, 256, 1, 28, 1, "conv4"),
    Layer(256, 256, 3, 28, 2, "conv4"),
    Layer(256, 1024, 1, 14, 1, "conv4"),
    Layer(512, 1024, 1, 28, 2, "conv4"),   # projection shortcut
    Layer(1024, 256, 1, 14, 1, "conv4"),
    Layer(256, 256, 3, 14, 1, "conv4"),
    # conv5_x, 14 -> 7
    Layer(1024, 512, 1, 14, 1, "conv5"),
    Layer(512, 512, 3, 14, 2, "conv5"),
    Layer(512, 2048, 1, 7, 1, "conv5"),
    Layer(1024, 2048, 1, 14, 2, "conv5"),  # projection shortcut
    Layer(2048, 512, 1, 7, 1, "conv5"),
    Layer(512, 512, 3, 7, 1, "conv5"),
)
assert len(LAYERS) == 23 and len({l.tag for l in LAYERS}) == 23

# The representative subset used where a (family, dtype, layout) is not swept in full:
# memory-bound 1x1s, compute-bound 3x3s at three sizes, a strided 3x3, a late 1x1.
REP_TAGS = ("1x1_c64_k256_56", "3x3_c64_k64_56", "3x3_c256_k256_14", "1x1_c256_k64_56",
            "3x3_c128_k128_56s2", "1x1_c1024_k256_14", "1x1_c2048_k512_7")
assert all(any(l.tag == t for l in LAYERS) for t in REP_TAGS)

# BN input shapes (C, H): the activations after conv1, conv2_x, conv3_x, conv4_x, conv5_x.
BN_SHAPES = ((64, 112), (256, 56), (512, 28), (1024, 14), (2048, 7))

CONV_FAMILIES = ("cba", "cbna")
NA_FAMILIES = ("na_inference", "na_fwd_training", "na_bwd_training")
FAMILY_TEXT = {
    "cba": "conv + bias + ReLU",
    "cbna": "conv + bias + BN inference + ReLU",
    "na_inference": "BN inference + ReLU",
    "na_fwd_training": "BN training forward + ReLU",
    "na_bwd_training": "BN training backward + ReLU backward",
}


@dataclass
class Case:
    id: str
    family: str
    dtype: str
    layout: str
    input: list[int]               # logical N, C, H, W
    layer: dict | None = None      # conv families: c, k, r, h, stride, pad, out_h
    spec: str = ""                 # spec file stem that holds it
    headline: bool = False
    flops: float = 0.0             # conv multiply-adds x 2 (+ nominal pointwise, as the driver)
    bytes: float = 0.0             # minimum traffic, counted as driver/metrics.h does
    output: list[int] = field(default_factory=list)

    def describe(self) -> str:
        if self.layer:
            l = self.layer
            geo = f"{l['r']}x{l['r']} C{l['c']}->K{l['k']} {l['h']}x{l['h']}" + (
                f" s{l['stride']}" if l["stride"] != 1 else "")
        else:
            geo = "x".join(map(str, self.input))
        return f"{self.family.upper()} {self.dtype} {self.layout} {geo}"


def _conv_case(family: str, dtype: str, layout: str, layer: Layer) -> Case:
    n, e = BATCH, ELEM_BYTES[dtype]
    ho = layer.out_h
    # x's least traffic is the pixels the windows read: a strided 1x1 need not load the rest
    # (counting all of x put 1x1 256->512 56x56 s2 at 130% of its "floor" on an H100).
    x = n * layer.c * layer.read_h * layer.read_h
    y = n * layer.k * ho * ho
    w = layer.k * layer.c * layer.r * layer.r
    flops = 2.0 * y * layer.c * layer.r * layer.r + 2.0 * y  # conv + bias + relu (1 each)
    nbytes = (x + y + w + layer.k) * e                     # bias is stored in the data type
    if family == "cbna":
        flops += 2.0 * y
        nbytes += 4 * layer.k * PARAM_BYTES
    d = {"c": layer.c, "k": layer.k, "r": layer.r, "h": layer.h, "stride": layer.stride, "pad": layer.pad,
         "out_h": ho}
    return Case(id=f"{family}_{dtype}_{layout}_{layer.tag}", family=family, dtype=dtype, layout=layout,
                input=[n, layer.c, layer.h, layer.h], layer=d, flops=flops, bytes=float(nbytes),
                output=[n, layer.k, ho, ho])


def _na_case(family: str, dtype: str, layout: str, c: int, h: int) -> Case:
    n, e = BATCH, ELEM_BYTES[dtype]
    x = n * c * h * h
    p = c * PARAM_BYTES
    if family == "na_inference":      # x, y; scale, bias, mean, var
        nbytes, flops = 2 * x * e + 4 * p, 3.0 * x
    elif family == "na_fwd_training":  # x, y; scale, bias; saved mean, inv var; running mean, var (r+w)
        nbytes, flops = 2 * x * e + (2 + 2 + 4) * p, 8.0 * x
    else:                              # dy, dx, x, y; scale, bias, saved mean, inv var; dscale, dbias
        nbytes, flops = 4 * x * e + (4 + 2) * p, 10.0 * x
    return Case(id=f"{family}_{dtype}_{layout}_c{c}_{h}", family=family, dtype=dtype, layout=layout,
                input=[n, c, h, h], flops=flops, bytes=float(nbytes), output=[n, c, h, h])


# ---- Spec files -------------------------------------------------------------------------------

@dataclass
class SpecFile:
    stem: str
    family: str
    dtype: str
    layout: str
    cases: list[Case]
    note: str


def _rep_split(family: str, dtype: str, layout: str) -> list[SpecFile]:
    rep = [l for l in LAYERS if l.tag in REP_TAGS]
    more = [l for l in LAYERS if l.tag not in REP_TAGS]
    stem = f"{family}_{dtype}_{layout}"
    return [
        SpecFile(stem, family, dtype, layout, [_conv_case(family, dtype, layout, l) for l in rep],
                 f"the {len(rep)} representative layers"),
        SpecFile(stem + "_more", family, dtype, layout, [_conv_case(family, dtype, layout, l) for l in more],
                 f"the other {len(more)} layers (with {stem}.toml: all 23)"),
    ]


def _all_spec_files() -> list[SpecFile]:
    files: list[SpecFile] = []
    for family in CONV_FAMILIES:
        for dtype in DTYPES:
            for layout in LAYOUTS:
                files += _rep_split(family, dtype, layout)
    for family in NA_FAMILIES:
        for dtype in ("fp32", "fp16"):
            for layout in LAYOUTS:
                files.append(SpecFile(f"{family}_{dtype}_{layout}", family, dtype, layout,
                                      [_na_case(family, dtype, layout, c, h) for c, h in BN_SHAPES],
                                      "ResNet-50 BN shapes"))
    return files


# The headline cases: (family, dtype, layout, layer tag or "c64_112").
HEADLINE = (
    ("cba", "fp16", "nhwc", "1x1_c64_k256_56"),
    ("cba", "fp16", "nhwc", "3x3_c64_k64_56"),
    ("cba", "fp16", "nhwc", "3x3_c256_k256_14"),
    ("cba", "fp32", "nchw", "1x1_c64_k256_56"),
    ("na_inference", "fp32", "nchw", "c64_112"),
    ("na_fwd_training", "fp32", "nchw", "c64_112"),
    ("na_bwd_training", "fp32", "nchw", "c64_112"),
)
HEADLINE_IDS = tuple(f"{f}_{d}_{l}_{t}" for f, d, l, t in HEADLINE)

SPEC_FILES: dict[str, SpecFile] = {s.stem: s for s in _all_spec_files()}
for _s in SPEC_FILES.values():
    for _c in _s.cases:
        _c.spec = _s.stem
        _c.headline = _c.id in HEADLINE_IDS
ALL_CASES: dict[str, Case] = {c.id: c for s in SPEC_FILES.values() for c in s.cases}
assert len(ALL_CASES) == sum(len(s.cases) for s in SPEC_FILES.values()), "case ids must be unique"
assert all(h in ALL_CASES for h in HEADLINE_IDS)

HEADLINE_FILE = SpecFile("headline", "mixed", "mixed", "mixed", [ALL_CASES[i] for i in HEADLINE_IDS],
                         "the issue's seven headline cases (the --quick set)")

# Sets: spec files in the order they run (most wanted first, so a budget cut drops the tail).
# "default" fits the 560 s budget with the driver at about 3.5-4.5 s a case (measured 2026-11-29 and 12-01:
# host data, verification and the unfused baseline dominate); "wide" is the set to run when a
# longer budget is available (about 12 min at that speed).
SETS: dict[str, list[str]] = {
    "quick": ["headline"],
    "default": [
        "na_inference_fp32_nchw", "na_fwd_training_fp32_nchw", "na_bwd_training_fp32_nchw",
        "cba_fp16_nhwc", "cba_fp32_nchw", "cbna_fp16_nhwc", "cba_bf16_nhwc",
        "cba_fp16_nhwc_more", "cba_fp16_nchw",
    ],
}
SETS["wide"] = SETS["default"] + [
    "cbna_bf16_nhwc", "cba_fp16_nchw_more",
    "na_inference_fp16_nchw", "na_fwd_training_fp16_nchw", "na_bwd_training_fp16_nchw",
]
# The BN families alone (fp32 NCHW, 5 ResNet-50 shapes each): for work on the NA kernels.
SETS["na"] = ["na_inference_fp32_nchw", "na_fwd_training_fp32_nchw", "na_bwd_training_fp32_nchw"]
# The 16-bit NCHW convolutions and the NA training families (fp32 NCHW): for work on the
# re-layout and the launches that follow it.
SETS["nchw"] = ["cba_fp16_nchw", "cbna_fp16_nchw", "cba_bf16_nchw", "na_fwd_training_fp32_nchw",
                "na_bwd_training_fp32_nchw"]
SETS["full"] = SETS["default"] + [s for s in SPEC_FILES if s not in SETS["default"]]


def set_files(name: str) -> list[str]:
    if name not in SETS:
        raise SystemExit(f"unknown set '{name}'; valid: {', '.join(SETS)}")
    return SETS[name]


def spec_file(stem: str) -> SpecFile:
    return HEADLINE_FILE if stem == "headline" else SPEC_FILES[stem]


def set_cases(name: str) -> list[Case]:
    """The cases of a set in run order, each once (headline.toml repeats catalogue cases)."""
    seen: dict[str, Case] = {}
    for stem in set_files(name):
        for c in spec_file(stem).cases:
            seen.setdefault(c.id, c)
    return list(seen.values())


# ---- TOML writer ------------------------------------------------------------------------------

def _toml_list(v) -> str:
    return "[" + ", ".join(str(x) for x in v) + "]"


def _ops_toml(family: str, layer: dict | None) -> list[str]:
    """Inline tables of one plan's ops, in plan order."""
    relu = '{ kind = "activation", mode = "relu" }'
    if family in CONV_FAMILIES:
        l = layer
        conv = (f'{{ kind = "conv", k = {l["k"]}, filter = {_toml_list([l["r"]] * 2)}, '
                f'stride = {_toml_list([l["stride"]] * 2)}, pad = {_toml_list([l["pad"]] * 2)} }}')
        ops = [conv, '{ kind = "bias" }']
        if family == "cbna":
            ops.append(f'{{ kind = "bn_inference", mode = "spatial", epsilon = {BN_EPS_TEXT} }}')
        return ops + [relu]
    if family == "na_inference":
        return [f'{{ kind = "bn_inference", mode = "spatial", epsilon = {BN_EPS_TEXT} }}', relu]
    if family == "na_fwd_training":
        return [f'{{ kind = "bn_forward_training", mode = "spatial", epsilon = {BN_EPS_TEXT}, '
                f'exp_avg_factor = {BN_EXP_AVG}, running_stats = true }}', relu]
    return ['{ kind = "bn_backward", mode = "spatial" }', '{ kind = "activation_backward", mode = "relu" }']


def verify_mode(family: str) -> str:
    # The sampled reference covers element-local chains after a conv; BN training statistics
    # need the whole tensor (lib/reference chain.h), so those use the full CPU reference.
    return "cpu" if family in ("na_fwd_training", "na_bwd_training") else "sample"


def render_spec(sf: SpecFile) -> str:
    out = [
        "# GENERATED by scripts/bench/cases.py -- do not edit by hand; regenerate with",
        "#   python3 scripts/bench/cases.py --write-specs",
        f"# Perf set: {sf.note}.",
    ]
    mixed = sf.family == "mixed"
    if not mixed:
        out.append(f"# {FAMILY_TEXT[sf.family]}, {sf.dtype}, {sf.layout}, batch {BATCH}.")
    out.append("# Case names are the case ids that scripts/bench/report.py joins on.")
    out.append("")
    if not mixed:
        out += [f'dtype = "{sf.dtype}"', f'layout = "{sf.layout}"',
                "op = [", *[f"  {o}," for o in _ops_toml(sf.family, sf.cases[0].layer)], "]"]
    out += ([""] if out[-1] else []) + ["[timing]", f"warmup = {WARMUP}", f"iters = {ITERS}"]
    if not mixed:
        vm = verify_mode(sf.family)
        out += ["", "[verify]", f'mode = "{vm}"'] + ([f"samples = {VERIFY_SAMPLES}"] if vm == "sample" else [])
    for c in sf.cases:
        out += ["", "[[case]]", f'name = "{c.id}"']
        if mixed:
            out += [f'dtype = "{c.dtype}"', f'layout = "{c.layout}"']
        out.append(f"input = {_toml_list(c.input)}")
        if mixed:
            out += ["op = [", *[f"  {o}," for o in _ops_toml(c.family, c.layer)], "]"]
            vm = verify_mode(c.family)
            out.append(f'verify = {{ mode = "{vm}"' + (f", samples = {VERIFY_SAMPLES}" if vm == "sample" else "")
                       + " }")
        elif c.layer:
            l = c.layer
            out.append(f'op.0 = {{ k = {l["k"]}, filter = {_toml_list([l["r"]] * 2)}, '
                       f'stride = {_toml_list([l["stride"]] * 2)}, pad = {_toml_list([l["pad"]] * 2)} }}')
        if c.headline:
            out[-1] += "  # headline" if not mixed else ""
    return "\n".join(out) + "\n"


def all_rendered() -> dict[str, str]:
    files = {f"{s.stem}.toml": render_spec(s) for s in SPEC_FILES.values()}
    files["headline.toml"] = render_spec(HEADLINE_FILE)
    return files


def write_specs(directory: Path) -> list[Path]:
    directory.mkdir(parents=True, exist_ok=True)
    written = []
    for name, text in all_rendered().items():
        p = directory / name
        if not p.exists() or p.read_text() != text:
            p.write_text(text)
            written.append(p)
    return written


def check_specs(directory: Path) -> list[str]:
    """Differences between the generated specs and the files on disk."""
    want = all_rendered()
    problems = [f"{directory / n}: missing or stale" for n, t in want.items()
                if not (directory / n).exists() or (directory / n).read_text() != t]
    problems += [f"{p}: not generated by cases.py" for p in sorted(directory.glob("*.toml")) if p.name not in want]
    return problems


# ---- CLI ---------------------------------------------------------------------------------------

def case_dicts(cases) -> list[dict]:
    return [dict(asdict(c), describe=c.describe()) for c in cases]


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--write-specs", action="store_true", help=f"(re)write {SPEC_DIR}")
    ap.add_argument("--check-specs", action="store_true", help="exit 1 if specs/perf is stale")
    ap.add_argument("--list", metavar="SET", help="print the cases of a set (quick, default, full)")
    ap.add_argument("--files", metavar="SET", help="print the spec files of a set, in run order")
    ap.add_argument("--json", action="store_true", help="with --list: JSON")
    a = ap.parse_args(argv)
    if a.write_specs:
        for p in write_specs(SPEC_DIR):
            print(f"wrote {p.relative_to(REPO)}")
    if a.check_specs:
        problems = check_specs(SPEC_DIR)
        for p in problems:
            print(p, file=sys.stderr)
        if problems:
            print("run: python3 scripts/bench/cases.py --write-specs", file=sys.stderr)
            return 1
    if a.files:
        print("\n".join(f"specs/perf/{s}.toml" for s in set_files(a.files)))
    if a.list:
        cases = set_cases(a.list)
        if a.json:
            json.dump(case_dicts(cases), sys.stdout, indent=1)
            print()
        else:
            for c in cases:
                print(f"{c.id:45s} {'*' if c.headline else ' '} {c.describe()}")
            print(f"{len(cases)} cases in {len(set_files(a.list))} spec files", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
