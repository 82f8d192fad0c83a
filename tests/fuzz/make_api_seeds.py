#!/usr/bin/env python3
"""Writes the hand-made seeds of fuzz_api (tests/fuzz/corpus/fuzz_api/seed_*.bin).

Each seed is a program in the byte encoding of tests/fuzz/api_harness.cpp; the Program class
below mirrors the order in which the harness reads its bytes, so keep the two in step when
the harness changes (the unit test replays every seed and fails if one breaks a rule; a
seed that drifts only loses depth, not correctness). Run from anywhere:
    python3 tests/fuzz/make_api_seeds.py
"""
import os

INTS = [1, 2, 3, 4, 1, 2, 8, 16, 5, 7, 1, 3, 0, -1, -2, 9, 11, 32, 64, 255, 256, 1024, 4096, 46341,
        65535, 65536, 1 << 24, 2**31 - 1, -2**31, 2**31 - 2, 1 << 30, 2]
REALS = [0.0, 1.0, -1.0, 0.5, 2.0, 1e-5, 0.99, 1e30, -1e30, 'nan', 'inf', '-inf', 'denorm', 1e-300, 'max', 0.1]
DTYPES = [1, 0, 5, 1, 0, 3, 2, 6, 7, 8, 9, 4, -1, 10, 100]
LAYOUTS = [0, 1, 7, 8, 0, 1, 2, 3, 4, 5, 6, 9, -1]
COUNTS = [4, 5, 4, 5, 3, 0, -1, 8, 9, 1, 2, 6]
ACT_MODES = [3, 0, 1, 2, 4, 5, 6, 7, 8, 9, 10, -1]
BN_MODES = [1, 0, 2, -1]
GEOMETRY = [0, 1, 2, 1, 3, 0]
KINDS = ['handle', 'tensor', 'conv', 'act', 'plan', 'op', 'args']
OP_KINDS = ['conv', 'bias', 'act_fwd', 'act_bwd', 'bn_inf', 'bn_fwd', 'bn_bwd', 'residual']
ARCHES = ['sm_90', None, '', 'sm_', 'sm_9', 'gfx90a', 'volta', 'sm_90a', 'sm_100f', 'sm_90b', 'sm_x0']

FLOAT, HALF, BF16 = 1, 0, 5
NCHW, NHWC = 0, 1


class Program:
    def __init__(self):
        self.out = bytearray()
        self.pools = {k: [] for k in KINDS}  # names, in the harness's pool order
        self.plan_ops = {}                   # plan name -> [(op name, kind)]
        self.count = 0

    def b(self, *values):
        for v in values:
            self.out.append(v & 0xFF)

    def index(self, table, value):
        return table.index(value)

    def integer(self, v):
        self.b(self.index(INTS, v))

    def real(self, v):
        self.b(self.index(REALS, v))

    def pick_n(self, n, i):  # Input::pick(n): no byte when n <= 1
        if n > 1:
            self.b(i)

    def live(self, kind):
        if kind == 'op':
            return [op for p in self.pools['plan'] for op, _ in self.plan_ops[p]]
        return self.pools[kind]

    def obj(self, kind, name):  # pick(Kind): selector 4 = a live object
        self.b(4)
        pool = self.live(kind)
        self.pick_n(len(pool), pool.index(name))

    def null(self):
        self.b(0)

    def junk(self):
        self.b(3)

    def dead(self):
        self.b(1)

    def new(self, kind):
        self.count += 1
        name = f'{kind}{self.count}'
        self.pools[kind].append(name)
        return name

    # --- calls, in the harness's order of reads ---
    def create_tensor(self):
        self.b(0, 1)
        return self.new('tensor')

    def set_4d(self, t, dtype, n, c, h, w):
        self.b(1)
        self.obj('tensor', t)
        self.b(self.index(DTYPES, dtype))
        for v in (n, c, h, w):
            self.integer(v)

    def set_nd(self, t, dtype, layout, lens):
        self.b(3)
        self.obj('tensor', t)
        self.b(self.index(DTYPES, dtype), self.index(LAYOUTS, layout), self.index(COUNTS, len(lens)))
        for v in (lens + [1] * 8)[:8]:
            self.integer(v)
        self.b(1)  # lens not null

    def derive_bn(self, d, x, mode):
        self.b(9)
        self.obj('tensor', d)
        self.obj('tensor', x)
        self.b([1, 0, 1, 0, 2, -1].index(mode))

    def create_conv(self):
        self.b(10, 1)
        name = self.new('conv')
        self.b(0)  # verify_conv's requested dims
        return name

    def geometry(self, v):
        self.b(1, GEOMETRY.index(v))

    def init_conv(self, c, pad, stride, dil):
        self.b(11)
        self.obj('conv', c)
        self.b(0)  # miopenConvolution
        for v in (pad, pad, stride, stride, dil, dil):
            self.geometry(v)
        self.b(0)  # verify_conv

    def create_act(self):
        self.b(18, 1)
        return self.new('act')

    def set_act(self, a, mode, alpha=1.0, beta=0.0, gamma=1.0):
        self.b(19)
        self.obj('act', a)
        self.b(self.index(ACT_MODES, mode))
        for v in (alpha, beta, gamma):
            self.real(v)
        self.b(7)  # no null output

    def create_plan(self, x):
        self.b(21)
        self.obj('tensor', x)
        self.b(0, 1)  # vertical, output not null
        name = self.new('plan')
        self.plan_ops[name] = []
        return name

    def create_op(self, plan, kind, *args):
        self.b(23)
        self.obj('plan', plan)
        self.b(OP_KINDS.index(kind), 1)
        running = False
        if kind == 'conv':
            self.obj('conv', args[0])
            self.obj('tensor', args[1])
        elif kind in ('bias', 'residual'):
            self.obj('tensor', args[0])
        elif kind in ('act_fwd', 'act_bwd'):
            self.b(self.index(ACT_MODES, args[0]))
        elif kind == 'bn_inf':
            self.b(BN_MODES.index(args[0]))
            self.obj('tensor', args[1])
        elif kind == 'bn_fwd':
            self.b(BN_MODES.index(args[0]), 1 if args[1] else 0)
            running = args[1]
        elif kind == 'bn_bwd':
            self.b(BN_MODES.index(args[0]))
        self.count += 1
        name = f'op{self.count}'
        self.plan_ops[plan].append((name, kind))
        return name

    def create_args(self):
        self.b(28, 1)
        return self.new('args')

    def set_args(self, args, op_kind, op_name):
        self.b(30)
        self.obj('args', args)
        self.b(OP_KINDS.index(op_kind))
        self.b(1)  # not one_in(3): a live op of the right kind
        right = [op for p in self.pools['plan'] for op, k in self.plan_ops[p] if k == op_kind]
        self.pick_n(len(right), right.index(op_name))
        self.b(0, 0)  # alpha, beta pointers null
        for i in range(7):
            self.b(1, i + 1)  # a non-null fake device pointer
        for v in (1.0, 0.5, 1e-5):
            self.real(v)

    def fake_handle(self):
        self.b(34, 1)
        return self.new('handle')

    def compile(self, h, plan):
        self.b(26)
        self.obj('handle', h)
        self.obj('plan', plan)

    def compile_for_arch(self, plan, arch):
        self.b(27)
        self.obj('plan', plan)
        self.b(ARCHES.index(arch), 1)

    def dry_compile(self, plan):
        self.b(36)
        self.pick_n(len(self.pools['plan']), self.pools['plan'].index(plan))
        self.b(0, 1)  # sm_90, 132 multiprocessors

    def execute(self, h, plan, x, y, args):
        self.b(31)
        self.obj('handle', h)
        self.obj('plan', plan)
        self.obj('tensor', x)
        self.obj('tensor', y)
        self.obj('args', args)
        self.b(1, 10, 1, 11)

    def plan_queries(self, plan, h):
        self.b(25)
        self.obj('plan', plan)
        self.obj('handle', h)
        self.b(1, 0, 0, 5, 0, 1)

    def one_shot(self, h, x, w, conv, z, b, act, y):
        self.b(32)
        for kind, name in (('handle', h), ('tensor', x), ('tensor', w), ('conv', conv), ('tensor', z), ('tensor', b),
                           ('act', act), ('tensor', y)):
            self.obj(kind, name)
        self.real(1.0)
        self.real(0.5)
        self.b(1, 1)  # both alphas given
        for i in range(5):
            self.b(1, 20 + i)
        self.b(0, 0, 0)

    def destroy_tensor(self, t):
        self.b(8)
        self.obj('tensor', t)
        self.pools['tensor'].remove(t)

    def destroy_plan(self, p):
        self.b(22)
        self.obj('plan', p)
        self.pools['plan'].remove(p)

    def raw(self, *values):
        self.b(*values)


def cba(p, dtype=FLOAT, layout=NCHW):
    x, w, b, y = p.create_tensor(), p.create_tensor(), p.create_tensor(), p.create_tensor()
    p.set_nd(x, dtype, layout, [2, 4, 16, 16])
    p.set_nd(w, dtype, layout, [8, 4, 3, 3])
    p.set_nd(b, dtype, NCHW, [1, 8, 1, 1])
    p.set_nd(y, dtype, layout, [2, 8, 16, 16])
    c = p.create_conv()
    p.init_conv(c, 1, 1, 1)
    plan = p.create_plan(x)
    ops = [p.create_op(plan, 'conv', c, w), p.create_op(plan, 'bias', b), p.create_op(plan, 'act_fwd', 3)]
    return x, w, b, y, c, plan, ops


def seeds():
    out = {}

    p = Program()  # conv + bias + relu, args, compile without a GPU, execute, queries
    x, w, b, y, c, plan, ops = cba(p)
    a = p.create_args()
    for op, kind in zip(ops, ['conv', 'bias', 'act_fwd']):
        p.set_args(a, kind, op)
    h = p.fake_handle()
    p.compile(h, plan)
    p.execute(h, plan, x, y, a)
    p.plan_queries(plan, h)
    p.dry_compile(plan)
    p.compile_for_arch(plan, 'sm_')
    p.compile_for_arch(plan, 'gfx90a')
    out['cba_fp32_nchw'] = p

    p = Program()
    cba(p, HALF, NHWC)
    out['cba_fp16_nhwc'] = p

    p = Program()
    cba(p, BF16, NHWC)
    out['cba_bf16_nhwc'] = p

    p = Program()  # BN inference + activation, fp16 NHWC with fp32 parameters
    x, bn = p.create_tensor(), p.create_tensor()
    p.set_nd(x, HALF, NHWC, [2, 8, 4, 4])
    p.derive_bn(bn, x, 1)
    plan = p.create_plan(x)
    o1 = p.create_op(plan, 'bn_inf', 1, bn)
    o2 = p.create_op(plan, 'act_fwd', 8)
    a = p.create_args()
    p.set_args(a, 'bn_inf', o1)
    p.set_args(a, 'act_fwd', o2)
    h = p.fake_handle()
    p.compile(h, plan)
    p.execute(h, plan, x, x, a)
    p.dry_compile(plan)
    out['bn_inference_act'] = p

    p = Program()  # BN training forward + activation, then BN backward + activation backward
    x = p.create_tensor()
    p.set_4d(x, FLOAT, 4, 8, 16, 16)
    plan = p.create_plan(x)
    f1 = p.create_op(plan, 'bn_fwd', 1, True)
    f2 = p.create_op(plan, 'act_fwd', 3)
    plan2 = p.create_plan(x)
    g1 = p.create_op(plan2, 'bn_bwd', 0)
    g2 = p.create_op(plan2, 'act_bwd', 3)
    a = p.create_args()
    p.set_args(a, 'bn_fwd', f1)
    p.set_args(a, 'act_fwd', f2)
    p.set_args(a, 'bn_bwd', g1)
    p.set_args(a, 'act_bwd', g2)
    h = p.fake_handle()
    p.compile(h, plan)
    p.compile(h, plan2)
    p.dry_compile(plan)
    p.dry_compile(plan2)
    p.destroy_plan(plan)
    p.set_args(a, 'act_bwd', g2)
    out['bn_training_fwd_bwd'] = p

    p = Program()  # conv + residual + bias + activation, and the one-shot call
    x, w, b, y, c, plan, ops = cba(p)
    p2 = p.create_plan(x)
    p.create_op(p2, 'conv', c, w)
    p.create_op(p2, 'residual', y)
    p.create_op(p2, 'bias', b)
    p.create_op(p2, 'act_fwd', 9)
    act = p.create_act()
    p.set_act(act, 3)
    h = p.fake_handle()
    p.one_shot(h, x, w, c, y, b, act, y)
    p.dry_compile(p2)
    out['conv_residual_oneshot'] = p

    p = Program()  # destroyed objects and wrong kinds everywhere
    x, w, b, y, c, plan, ops = cba(p)
    a = p.create_args()
    p.destroy_tensor(w)
    p.destroy_plan(plan)
    for op in range(40):
        p.raw(op % 37, 1, 1, 2, 3, 2, 4, 1, 0, 3, 1)
    out['misuse_dead_and_wrong'] = p

    p = Program()  # big shapes near the int limits
    t = p.create_tensor()
    p.set_4d(t, FLOAT, 65536, 65536, 1, 1)
    p.set_4d(t, HALF, 46341, 46341, 2, 1)
    p.set_4d(t, FLOAT, 2**31 - 1, 1, 1, 1)
    x = p.create_tensor()
    p.set_4d(x, FLOAT, 1, 4, 65535, 65535)
    plan = p.create_plan(x)
    p.create_op(plan, 'act_fwd', 3)
    p.dry_compile(plan)
    out['large_shapes'] = p

    p = Program()  # every op kind on one plan, every query
    x, bn = p.create_tensor(), p.create_tensor()
    p.set_4d(x, FLOAT, 2, 8, 8, 8)
    p.derive_bn(bn, x, 0)
    plan = p.create_plan(x)
    for kind, args in (('bias', ()), ('act_fwd', (6,)), ('bn_inf', (0, bn)), ('bn_fwd', (0, False)), ('bn_bwd', (1,)),
                       ('act_bwd', (2,)), ('residual', (x,))):
        if kind in ('bias',):
            b = p.create_tensor()
            p.set_4d(b, FLOAT, 1, 8, 1, 1)
            args = (b,)
        p.create_op(plan, kind, *args)
    h = p.fake_handle()
    p.plan_queries(plan, h)
    p.compile(h, plan)
    out['all_op_kinds'] = p

    p = Program()  # handles, info and stats calls
    h = p.fake_handle()
    for sub in range(7):
        p.raw(33, sub, 4, 1, 1, 1)
    for sub in range(4):
        p.raw(35, 0, sub, 1, 1, 1)
    p.raw(34, 0, 4)  # destroy the handle
    out['handles_and_info'] = p

    return out


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    target = os.path.join(here, 'corpus', 'fuzz_api')
    os.makedirs(target, exist_ok=True)
    for name, program in seeds().items():
        with open(os.path.join(target, f'seed_{name}.bin'), 'wb') as f:
            f.write(bytes(program.out))
        print(f'seed_{name}.bin: {len(program.out)} bytes')


if __name__ == '__main__':
    main()
