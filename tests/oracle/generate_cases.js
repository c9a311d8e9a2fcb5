#!/usr/bin/env node
// Generates the op cases of the oracle test (oracle_diff_test.cc): random inputs from a fixed
// seed, run through TensorFlow.js's CPU backend, written as JSON with tfjs's outputs or error.
//
//   node generate_cases.js [OUTPUT]        (default: cases.json beside this script)
//
// Each case is one TensorFlow op with its attrs (TensorFlow's names and types, as a GraphDef
// node carries them), its inputs and what tfjs computed for the same semantics. Only float32,
// int32 and bool appear: tfjs computes everything else as one of them. Where tfjs is known not
// to be TensorFlow, the case is not generated; each such rule is a comment at the place it
// applies (docs/oracle.md lists them). A case tfjs refuses although TensorFlow accepts it (or
// the reverse), or whose output dtype is not TensorFlow's, is dropped and listed in `dropped`.
'use strict';

const fs = require('fs');
const path = require('path');

const tf = require('@tensorflow/tfjs-core');
require('@tensorflow/tfjs-backend-cpu');

const kSeed = 20261129;
const kFormatVersion = 1;

// ---- Deterministic randomness (mulberry32) -------------------------------------------------

let rngState = kSeed >>> 0;
function rand() {
  rngState = (rngState + 0x6d2b79f5) >>> 0;
  let t = rngState;
  t = Math.imul(t ^ (t >>> 15), t | 1);
  t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
  return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
}
function randInt(lo, hi) { return lo + Math.floor(rand() * (hi - lo + 1)); }  // inclusive
function pick(items) { return items[Math.floor(rand() * items.length)]; }
function chance(p) { return rand() < p; }
function shuffle(items) {
  const out = items.slice();
  for (let i = out.length - 1; i > 0; --i) {
    const j = randInt(0, i);
    [out[i], out[j]] = [out[j], out[i]];
  }
  return out;
}

// ---- Shapes and values ---------------------------------------------------------------------

function numElements(shape) { return shape.reduce((a, b) => a * b, 1); }

// A dimension: mostly 2..maxDim, sometimes 1, and 0 when `empty` allows it.
function randomDim(maxDim = 4, empty = true) {
  const r = rand();
  if (empty && r < 0.07) return 0;
  if (r < 0.25) return 1;
  return randInt(2, maxDim);
}
function randomShape(rank, maxDim = 4, empty = true) {
  const shape = [];
  for (let i = 0; i < rank; ++i) shape.push(randomDim(maxDim, empty));
  return shape;
}

const kSpecials = [NaN, Infinity, -Infinity, 0, -0];

// float32 values on a 1/64 grid in [lo, hi] (short in JSON, exact in float32); with `specials`
// a fraction of them are NaN, +-inf or +-0.
function randomFloats(n, { lo = -4, hi = 4, specials = false, grid = 64 } = {}) {
  const out = [];
  for (let i = 0; i < n; ++i) {
    if (specials && chance(0.1)) {
      out.push(pick(specials === true ? kSpecials : specials));
    } else {
      out.push(Math.fround(Math.round((lo + rand() * (hi - lo)) * grid) / grid));
    }
  }
  return out;
}
function randomInts(n, lo = -20, hi = 20) {
  const out = [];
  for (let i = 0; i < n; ++i) out.push(randInt(lo, hi));
  return out;
}
function randomBools(n) {
  const out = [];
  for (let i = 0; i < n; ++i) out.push(chance(0.5) ? 1 : 0);
  return out;
}

// A tensor description: {dtype, shape, values}, bools as 0/1.
function tensor(dtype, shape, values) { return { dtype, shape, values }; }
function randomTensor(dtype, shape, options = {}) {
  const n = numElements(shape);
  if (dtype === 'float32') return tensor(dtype, shape, randomFloats(n, options));
  if (dtype === 'int32') return tensor(dtype, shape, randomInts(n, options.ilo, options.ihi));
  return tensor(dtype, shape, randomBools(n));
}
function int32s(values, shape = [values.length]) { return tensor('int32', shape, values); }
function int32Scalar(v) { return tensor('int32', [], [v]); }
function floatScalar(v) { return tensor('float32', [], [v]); }

function toTf(t) {
  const values = t.dtype === 'bool' ? t.values.map((v) => v !== 0) : t.values;
  return tf.tensor(values, t.shape, t.dtype);
}

// ---- Attrs, as a GraphDef's AttrValue ------------------------------------------------------

const attr = {
  type: (t) => ({ type: t }),
  i: (v) => ({ i: v }),
  f: (v) => ({ f: v }),
  b: (v) => ({ b: v }),
  s: (v) => ({ s: v }),
  ints: (v) => ({ list_i: v }),
};

// ---- Tolerances ----------------------------------------------------------------------------
// A float element matches when within `ulps` units in the last place or within `atol`.

const kExact = { ulps: 0, atol: 0 };
const kRounded = { ulps: 2, atol: 0 };  // one correctly rounded operation (+ - * /, sqrt)
const kTranscendental = { ulps: 16, atol: 1e-6 };  // libm-grade functions, and tfjs's erf
function accumulated(terms, magnitude) {  // sums of `terms` products of size `magnitude`
  return { ulps: 64, atol: 2e-6 * Math.max(1, terms) * Math.max(1, magnitude) };
}
function maxAbs(values) {
  let m = 0;
  for (const v of values) if (Number.isFinite(v)) m = Math.max(m, Math.abs(v));
  return m;
}

// ---- Cases ---------------------------------------------------------------------------------

const cases = [];
const dropped = [];
const perOpCount = new Map();

function formatFloat(v) {
  if (Number.isNaN(v)) return 'nan';
  if (v === Infinity) return 'inf';
  if (v === -Infinity) return '-inf';
  if (Object.is(v, -0)) return '-0';  // JSON.stringify would drop the sign
  return v;
}
// Shortest decimal that reads back as the same float32.
function shortestFloat32(v) {
  for (let p = 1; p <= 9; ++p) {
    const s = v.toPrecision(p);
    if (Math.fround(Number(s)) === v) return Number(s);
  }
  return v;
}
function encodeValues(dtype, values) {
  if (dtype === 'float32') {
    return Array.from(values,
                      (v) => formatFloat(Number.isFinite(v) && v !== 0 ? shortestFloat32(v) : v));
  }
  if (dtype === 'bool') return Array.from(values, (v) => (v ? 1 : 0));
  return Array.from(values, Number);
}

function sameValues(a, b) {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; ++i) {
    if (!(Object.is(Number(a[i]), Number(b[i])) || Number(a[i]) === Number(b[i]))) return false;
  }
  return true;
}

// Adds one case. `compute(...tfInputs)` returns a tf.Tensor or an array of them.
// options: expectError (TensorFlow refuses these inputs), outDtypes (TensorFlow's output
// dtypes, checked against tfjs's), tol, reference (a function giving TensorFlow's answer,
// {shape, values} or {error}, where tfjs is known to stray: a case where tfjs disagrees with it
// is dropped).
function addCase(op, attrs, inputs, compute, options = {}) {
  const index = perOpCount.get(op) || 0;
  perOpCount.set(op, index + 1);
  const name = `${op}_${index}`;
  let outputs = null;
  let error = null;
  try {
    outputs = tf.tidy(() => {
      const result = compute(...inputs.map(toTf));
      const list = Array.isArray(result) ? result : [result];
      return list.map((t) => ({ dtype: t.dtype, shape: t.shape.slice(), values: t.dataSync() }));
    });
  } catch (e) {
    error = String(e.message || e).split('\n')[0];
  }
  if (options.reference) {
    const expected = options.reference();
    options = { ...options, expectError: Boolean(expected.error) };
    if (!expected.error && !error &&
        (outputs[0].shape.join() !== expected.shape.join() ||
         !sameValues(outputs[0].values, expected.values))) {
      const show = (t) => `[${t.shape}] {${Array.from(t.values).slice(0, 12).join(', ')}}`;
      dropped.push({ name, op, attrs, inputs: inputs.slice(1).map((t) => t.values),
                     reason: `tfjs answers ${show(outputs[0])}, TensorFlow's rules ` +
                             `${show(expected)} for input ${show(inputs[0])}` });
      return;
    }
  }
  if (options.expectError && !error) {
    dropped.push({ name, op, reason: 'tfjs accepts inputs TensorFlow refuses' });
    return;
  }
  if (!options.expectError && error) {
    dropped.push({ name, op, reason: `tfjs refuses: ${error}` });
    return;
  }
  const encodedInputs = inputs.map((t) => ({
    dtype: t.dtype, shape: t.shape, values: encodeValues(t.dtype, t.values) }));
  const entry = { name, op, attrs, inputs: encodedInputs };
  if (error) {
    entry.error = error;
  } else {
    const expected = options.outDtypes;
    for (let i = 0; i < outputs.length; ++i) {
      if (numElements(outputs[i].shape) !== outputs[i].values.length) {
        const reason = `tfjs output ${i} has ${outputs[i].values.length} values for shape ` +
                       `[${outputs[i].shape}]`;
        dropped.push({ name, op, reason });
        return;
      }
      const want = expected ? expected[Math.min(i, expected.length - 1)] : inputs[0].dtype;
      if (outputs[i].dtype !== want) {
        const reason = `tfjs output ${i} is ${outputs[i].dtype}, TensorFlow's is ${want}`;
        dropped.push({ name, op, reason });
        return;
      }
    }
    entry.outputs = outputs.map((o) => ({
      dtype: o.dtype, shape: o.shape, values: encodeValues(o.dtype, o.values) }));
    if (outputs.some((o) => o.dtype === 'float32')) entry.tol = options.tol || kRounded;
  }
  cases.push(entry);
}

// ---- Element-wise unary ops ----------------------------------------------------------------

function unaryShape() { return randomShape(randInt(0, 4), 4); }

// [TensorFlow op, tfjs function, value options (range, specials), tolerance].
const kUnaryFloat = [
  ['Abs', tf.abs], ['Neg', tf.neg], ['Square', tf.square, {}, kRounded],
  ['Exp', tf.exp, { lo: -12, hi: 12 }, kTranscendental],
  ['Log', tf.log, { lo: -1, hi: 20 }, kTranscendental],
  ['Sqrt', tf.sqrt, { lo: -1, hi: 20 }, kRounded],
  ['Rsqrt', tf.rsqrt, { lo: -1, hi: 20 }, kTranscendental],
  ['Tanh', tf.tanh, { lo: -10, hi: 10 }, kTranscendental],
  ['Sigmoid', tf.sigmoid, { lo: -20, hi: 20 }, kTranscendental],
  // tfjs's sign of NaN is 0, TensorFlow's is NaN: no NaN.
  ['Sign', tf.sign, { specials: [Infinity, -Infinity, 0, -0] }],
  ['Floor', tf.floor], ['Ceil', tf.ceil],
  // Halves included: both round half to even.
  ['Round', tf.round, { lo: -6, hi: 6, grid: 4 }],
  ['Reciprocal', tf.reciprocal, {}, kRounded],
  // tfjs's erf is Abramowitz and Stegun 7.1.26 (absolute error 1.5e-7): within kTranscendental.
  ['Erf', tf.erf, { lo: -4, hi: 4 }, kTranscendental],
  ['Log1p', tf.log1p, { lo: -1.5, hi: 10 }, kTranscendental],
  ['Expm1', tf.expm1, { lo: -10, hi: 10 }, kTranscendental],
  ['Relu', tf.relu], ['Relu6', tf.relu6, { lo: -3, hi: 9 }],
  ['Elu', tf.elu, {}, kTranscendental], ['Selu', tf.selu, {}, kTranscendental],
  ['Softplus', tf.softplus, { lo: -30, hi: 30 }, kTranscendental],
];

function addUnaryCases() {
  for (const [op, fn, range = {}, tol = kExact] of kUnaryFloat) {
    for (let k = 0; k < 10; ++k) {
      const x = randomTensor('float32', unaryShape(), { specials: true, ...range });
      addCase(op, { T: attr.type('float32') }, [x], fn, { tol });
    }
  }
  for (let k = 0; k < 8; ++k) {
    const alpha = pick([0.2, 0.01, 0.5, 1.5]);
    const x = randomTensor('float32', unaryShape(), { specials: true });
    addCase('LeakyRelu', { T: attr.type('float32'), alpha: attr.f(alpha) }, [x],
            (t) => tf.leakyRelu(t, alpha), { tol: kRounded });
  }
  // Integer element-wise ops with small values (no overflow; tfjs computes in doubles).
  for (const [op, fn] of [['Abs', tf.abs], ['Neg', tf.neg], ['Square', tf.square],
                          ['Sign', tf.sign], ['Relu', tf.relu]]) {
    for (let k = 0; k < 4; ++k) {
      const x = randomTensor('int32', unaryShape(), { ilo: -1000, ihi: 1000 });
      addCase(op, { T: attr.type('int32') }, [x], fn);
    }
  }
  for (let k = 0; k < 6; ++k) {
    addCase('LogicalNot', {}, [randomTensor('bool', unaryShape())], tf.logicalNot);
  }
}

// ---- Element-wise binary ops (broadcasting) ------------------------------------------------

// Two shapes that broadcast: a common shape, each side dropping leading dimensions or setting
// some to 1. With `incompatible`, one dimension is changed so that they do not.
function broadcastShapes(incompatible = false) {
  const rank = randInt(0, 4);
  const base = randomShape(rank, 4);
  const side = () => {
    const drop = chance(0.3) ? randInt(0, rank) : 0;
    return base.slice(drop).map((d) => (chance(0.25) ? 1 : d));
  };
  const a = side();
  const b = side();
  if (incompatible) {
    const candidates = [];
    for (let i = 1; i <= Math.min(a.length, b.length); ++i) candidates.push(i);
    if (candidates.length === 0) return [[3], [2]];
    const i = pick(candidates);
    a[a.length - i] = 3;
    b[b.length - i] = 2;
  }
  return [a, b];
}

// [TensorFlow op, tfjs function, dtypes, tolerance, output dtype or null (same as input)].
const kBinary = [
  ['AddV2', tf.add, ['float32', 'int32'], kRounded],
  ['Add', tf.add, ['float32', 'int32'], kRounded],
  ['Sub', tf.sub, ['float32', 'int32'], kRounded], ['Mul', tf.mul, ['float32', 'int32'], kRounded],
  ['RealDiv', tf.div, ['float32'], kRounded],
  // Div on integers truncates in TensorFlow; tfjs's div floors them: float only.
  ['Div', tf.div, ['float32'], kRounded],
  // tfjs's floorDiv of floats answers int32: TensorFlow's float FloorDiv is floor(x / y).
  ['FloorDiv', (a, b) => (a.dtype === 'float32' ? tf.floor(tf.div(a, b)) : tf.floorDiv(a, b)),
   ['float32', 'int32'], kRounded],
  // tfjs's mod is a floor modulo: TensorFlow's FloorMod (TensorFlow's Mod and TruncateMod
  // truncate, which tfjs has no op for).
  ['FloorMod', tf.mod, ['float32', 'int32'], kRounded],
  ['Pow', tf.pow, ['float32', 'int32'], kTranscendental],
  ['SquaredDifference', tf.squaredDifference, ['float32', 'int32'], kRounded],
  ['Maximum', tf.maximum, ['float32', 'int32'], kExact],
  ['Minimum', tf.minimum, ['float32', 'int32'], kExact],
  ['Less', tf.less, ['float32', 'int32'], kExact, 'bool'],
  ['LessEqual', tf.lessEqual, ['float32', 'int32'], kExact, 'bool'],
  ['Greater', tf.greater, ['float32', 'int32'], kExact, 'bool'],
  ['GreaterEqual', tf.greaterEqual, ['float32', 'int32'], kExact, 'bool'],
  ['Equal', tf.equal, ['float32', 'int32', 'bool'], kExact, 'bool'],
  ['NotEqual', tf.notEqual, ['float32', 'int32', 'bool'], kExact, 'bool'],
  ['LogicalAnd', tf.logicalAnd, ['bool'], kExact, 'bool'],
  ['LogicalOr', tf.logicalOr, ['bool'], kExact, 'bool'],
];

// Makes the operands of `op` meaningful where the two libraries agree on what is defined.
function adjustBinaryOperands(op, dtype, a, b) {
  const integerDivision = dtype === 'int32' && (op === 'FloorDiv' || op === 'FloorMod');
  if (integerDivision) {
    // An integer division by zero is an error in TensorFlow and a float result in tfjs.
    b.values = b.values.map((v) => (v === 0 ? 3 : v));
  }
  if (op === 'FloorMod' && dtype === 'float32') {
    // tfjs computes (x % y + y) % y for operands of different signs, which is NaN for an
    // infinite y where TensorFlow's fmod-and-adjust gives +-inf: no infinite divisors.
    b.values = b.values.map((v) => (Number.isFinite(v) || Number.isNaN(v) ? v : 5));
  }
  if (op === 'Pow') {
    if (dtype === 'int32') {
      // Integer powers: small bases, non-negative exponents (negative ones are an error in
      // TensorFlow), no overflow.
      a.values = a.values.map((v) => v % 5);
      b.values = b.values.map((v) => Math.abs(v) % 6);
    } else {
      // JavaScript's Math.pow(+-1, +-inf or NaN) is NaN, C's pow gives 1: not compared.
      for (let i = 0; i < Math.max(a.values.length, b.values.length); ++i) {
        const bv = b.values[i % b.values.length];
        if (!Number.isFinite(bv)) {
          for (let j = 0; j < a.values.length; ++j) {
            if (Math.abs(a.values[j]) === 1) a.values[j] = 2;
          }
        }
      }
    }
  }
  if (dtype === 'float32' && op === 'Pow') {
    // Moderate exponents keep most results finite.
    b.values = b.values.map((v) => (Number.isFinite(v) ? Math.fround(v / 2) : v));
  }
}

function addBinaryCases() {
  for (const [op, fn, dtypes, tol, outDtype] of kBinary) {
    for (const dtype of dtypes) {
      const count = dtypes.length === 1 ? 14 : dtype === 'float32' ? 10 : 6;
      for (let k = 0; k < count; ++k) {
        const incompatible = k === count - 1;  // one case of shapes that do not broadcast
        const [sa, sb] = broadcastShapes(incompatible);
        const options = { specials: true, ilo: -50, ihi: 50 };
        const a = randomTensor(dtype, sa, options);
        const b = randomTensor(dtype, sb, options);
        adjustBinaryOperands(op, dtype, a, b);
        const attrs = op.startsWith('Logical') ? {} : { T: attr.type(dtype) };
        addCase(op, attrs, [a, b], fn,
                { tol, outDtypes: [outDtype || dtype], expectError: incompatible });
      }
    }
  }
  // Select: condition of the same shape as the branches; SelectV2: all three broadcast.
  for (let k = 0; k < 8; ++k) {
    const dtype = pick(['float32', 'int32', 'bool']);
    const shape = unaryShape();
    addCase('Select', { T: attr.type(dtype) },
            [randomTensor('bool', shape), randomTensor(dtype, shape, { specials: true }),
             randomTensor(dtype, shape, { specials: true })],
            (c, x, y) => tf.where(c, x, y), { outDtypes: [dtype] });
  }
  for (let k = 0; k < 12; ++k) {
    const dtype = pick(['float32', 'int32', 'bool']);
    // tfjs's where broadcasts an empty branch to size 1 (TensorFlow: size 0): no empty dims.
    const [sa, sb] = broadcastShapes().map((s) => s.map((d) => d || 1));
    const sc = chance(0.5) ? sa.slice(randInt(0, sa.length)) : sb;
    addCase('SelectV2', { T: attr.type(dtype) },
            [randomTensor('bool', sc), randomTensor(dtype, sa, { specials: true }),
             randomTensor(dtype, sb, { specials: true })],
            (c, x, y) => tf.where(c, x, y), { outDtypes: [dtype] });
  }
  for (let k = 0; k < 10; ++k) {
    const dtype = pick(['float32', 'float32', 'int32']);
    const n = randInt(1, 4);
    const shape = unaryShape();
    const inputs = [];
    for (let i = 0; i < n; ++i) inputs.push(randomTensor(dtype, shape, { specials: k % 3 === 0 }));
    addCase('AddN', { N: attr.i(n), T: attr.type(dtype) }, inputs, (...xs) => tf.addN(xs),
            { tol: accumulated(n, 4) });
  }
}

// ---- Reductions ----------------------------------------------------------------------------

// Reduction axes as TensorFlow's reduction_indices: one axis (maybe negative, maybe as a
// scalar), several, none, or all.
function randomAxes(rank) {
  if (rank === 0) return [];
  const r = rand();
  if (r < 0.35) {
    const axis = randInt(-rank, rank - 1);
    return chance(0.4) ? axis : [axis];  // a plain number: a scalar axis tensor
  }
  if (r < 0.45) return [];
  if (r < 0.6) return [...Array(rank).keys()];
  return shuffle([...Array(rank).keys()]).slice(0, randInt(1, rank)).map(
      (a) => (chance(0.3) ? a - rank : a));
}
function axesTensor(axes) {
  return typeof axes === 'number' ? int32Scalar(axes) : int32s(axes);
}
function normalizedAxes(axes, rank) {
  const list = typeof axes === 'number' ? [axes] : axes;
  return list.map((a) => (a < 0 ? a + rank : a));
}

const kReductions = [
  ['Sum', tf.sum, ['float32', 'int32']], ['Prod', tf.prod, ['float32', 'int32']],
  // tfjs's Mean of int32 is float32 (TensorFlow's is a truncated int32 mean): float only.
  ['Mean', tf.mean, ['float32']],
  ['Max', tf.max, ['float32', 'int32']], ['Min', tf.min, ['float32', 'int32']],
  ['All', tf.all, ['bool']], ['Any', tf.any, ['bool']],
];

function addReductionCases() {
  for (const [op, fn, dtypes] of kReductions) {
    for (const dtype of dtypes) {
      const count = dtypes.length === 1 ? 16 : dtype === 'float32' ? 14 : 8;
      for (let k = 0; k < count; ++k) {
        const rank = op === 'Prod' ? randInt(0, 3) : randInt(0, 4);
        // Max, Min and Mean over an empty set are -inf, +inf and NaN in TensorFlow and NaN,
        // NaN and 0 in tfjs: their inputs have no empty dimension.
        // All over an empty set is true in TensorFlow, false in tfjs.
        const noEmpty = op === 'Max' || op === 'Min' || op === 'Mean' || op === 'All' ||
                        op === 'Any';
        // Prod: at most 27 elements, so that neither float's partial products (tfjs multiplies in
        // doubles) nor int32's (tfjs rounds a double to int32) leave their range.
        const shape = randomShape(rank, op === 'Prod' ? 3 : 4, !noEmpty);
        const axes = randomAxes(rank);
        const keepDims = chance(0.5);
        const x = randomTensor(dtype, shape,
                               { specials: k % 2 === 0, lo: op === 'Prod' ? -2 : -4,
                                 hi: op === 'Prod' ? 2 : 4, ilo: op === 'Prod' ? -2 : -3,
                                 ihi: op === 'Prod' ? 2 : 3 });
        const attrs = { keep_dims: attr.b(keepDims), Tidx: attr.type('int32') };
        if (dtype !== 'bool') attrs.T = attr.type(dtype);
        const reduced = normalizedAxes(axes, rank).reduce((n, a) => n * shape[a], 1);
        addCase(op, attrs, [x, axesTensor(axes)],
                (t) => fn(t, normalizedAxes(axes, rank), keepDims),
                { tol: op === 'Prod' ? { ulps: 8 * Math.max(1, reduced), atol: 0 }
                                     : accumulated(reduced, 4) });
      }
    }
  }
  for (const [op, fn] of [['ArgMax', tf.argMax], ['ArgMin', tf.argMin]]) {
    for (let k = 0; k < 14; ++k) {
      const dtype = k % 3 === 2 ? 'int32' : 'float32';
      const rank = randInt(1, 4);
      // An empty reduced dimension is an error in TensorFlow and 0 in tfjs; NaN is excluded
      // because tfjs keeps a leading NaN while TensorFlow's reducer lets a number replace it.
      const shape = randomShape(rank, 4, false);
      const axis = randInt(-rank, rank - 1);
      const x = randomTensor(dtype, shape,
                             { specials: [Infinity, -Infinity, 0], grid: 2, ilo: -3, ihi: 3 });
      addCase(op, { T: attr.type(dtype), Tidx: attr.type('int32'),
                    output_type: attr.type('int32') },
              [x, int32Scalar(axis)], (t) => fn(t, axis), { outDtypes: ['int32'] });
    }
  }
  // Cumsum: exclusive and reverse in every combination.
  for (let k = 0; k < 16; ++k) {
    const dtype = k % 4 === 3 ? 'int32' : 'float32';
    const rank = randInt(1, 3);
    const shape = randomShape(rank, 5);
    const axis = randInt(-rank, rank - 1);
    const exclusive = (k & 1) === 1;
    const reverse = (k & 2) === 2;
    addCase('Cumsum', { T: attr.type(dtype), Tidx: attr.type('int32'),
                        exclusive: attr.b(exclusive), reverse: attr.b(reverse) },
            [randomTensor(dtype, shape, { specials: k % 5 === 0 }), int32Scalar(axis)],
            // tfjs's cumsum mishandles a negative axis: it gets the axis counted from the front.
            (t) => tf.cumsum(t, axis < 0 ? axis + rank : axis, exclusive, reverse),
            { tol: accumulated(5, 4) });
  }
  // UnsortedSegmentSum: 1-D segment ids (tfjs's only form), ids in range.
  for (let k = 0; k < 8; ++k) {
    const shape = [randInt(1, 6), ...randomShape(randInt(0, 2), 3)];
    const numSegments = randInt(1, 5);
    const ids = randomInts(shape[0], 0, numSegments - 1);
    addCase('UnsortedSegmentSum', { T: attr.type('float32'), Tindices: attr.type('int32'),
                                    Tnumsegments: attr.type('int32') },
            [randomTensor('float32', shape), int32s(ids), int32Scalar(numSegments)],
            (x, s) => tf.unsortedSegmentSum(x, s, numSegments), { tol: accumulated(6, 4) });
  }
}

// ---- Matrix products -----------------------------------------------------------------------

function addMatMulCases() {
  for (let k = 0; k < 24; ++k) {
    const m = randomDim(5);
    const kk = randomDim(5);
    const n = randomDim(5);
    const ta = chance(0.5);
    const tb = chance(0.5);
    const mismatch = k === 23;  // inner dimensions that differ
    const a = randomTensor('float32', ta ? [kk, m] : [m, kk], { specials: k % 6 === 0 });
    const kb = kk + (mismatch ? 1 : 0);
    const b = randomTensor('float32', tb ? [n, kb] : [kb, n]);
    addCase('MatMul', { T: attr.type('float32'), transpose_a: attr.b(ta), transpose_b: attr.b(tb) },
            [a, b], (x, y) => tf.matMul(x, y, ta, tb),
            { tol: accumulated(kk, 16), expectError: mismatch });
  }
  for (let k = 0; k < 16; ++k) {
    const m = randomDim(4);
    const kk = randomDim(4);
    const n = randomDim(4);
    const adjX = chance(0.5);
    const adjY = chance(0.5);
    const batch = randomShape(randInt(1, 2), 3);
    // tfjs's matMul pairs the wrong matrices where a batch dimension of 1 broadcasts: batches
    // broadcast only by rank.
    const batchX = batch.slice();
    const batchY = batch.slice(chance(0.3) ? 1 : 0);
    const x = randomTensor('float32', [...batchX, ...(adjX ? [kk, m] : [m, kk])]);
    const y = randomTensor('float32', [...batchY, ...(adjY ? [n, kk] : [kk, n])]);
    addCase('BatchMatMulV2', { T: attr.type('float32'), adj_x: attr.b(adjX), adj_y: attr.b(adjY) },
            [x, y], (a, b) => tf.matMul(a, b, adjX, adjY), { tol: accumulated(kk, 16) });
  }
}

// ---- Convolutions and pooling (NHWC) -------------------------------------------------------

// Output size of one spatial dimension, as TensorFlow computes it.
function convOutSize(inSize, filter, stride, dilation, padding) {
  const effective = (filter - 1) * dilation + 1;
  if (padding === 'SAME') return Math.ceil(inSize / stride);
  return Math.floor((inSize - effective) / stride) + 1;
}

function addConvCases() {
  for (let k = 0; k < 30; ++k) {
    const n = randInt(1, 2);
    const h = randInt(1, 7);
    const w = randInt(1, 7);
    const c = randInt(1, 3);
    const oc = randInt(1, 3);
    const fh = randInt(1, Math.min(3, h));
    const fw = randInt(1, Math.min(3, w));
    const padding = pick(['SAME', 'VALID', 'VALID', 'EXPLICIT']);
    // Strides and dilations both above 1 are refused by tfjs (and by TensorFlow's CPU kernel).
    const dilated = chance(0.25);
    const sh = dilated ? 1 : randInt(1, 3);
    const sw = dilated ? 1 : randInt(1, 3);
    const dh = dilated ? randInt(1, 2) : 1;
    const dw = dilated ? randInt(1, 2) : 1;
    if (padding === 'VALID' && ((fh - 1) * dh + 1 > h || (fw - 1) * dw + 1 > w)) continue;
    const explicit = [0, 0, randInt(0, 2), randInt(0, 2), randInt(0, 2), randInt(0, 2), 0, 0];
    const attrs = { T: attr.type('float32'), strides: attr.ints([1, sh, sw, 1]),
                    padding: attr.s(padding), dilations: attr.ints([1, dh, dw, 1]),
                    data_format: attr.s('NHWC') };
    let pad = padding.toLowerCase();
    if (padding === 'EXPLICIT') {
      attrs.explicit_paddings = attr.ints(explicit);
      pad = [[0, 0], [explicit[2], explicit[3]], [explicit[4], explicit[5]], [0, 0]];
      if ((fh - 1) * dh + 1 > h + explicit[2] + explicit[3] ||
          (fw - 1) * dw + 1 > w + explicit[4] + explicit[5]) continue;
    }
    const x = randomTensor('float32', [n, h, w, c],
                           { specials: k % 10 === 0 ? [Infinity] : false });
    const f = randomTensor('float32', [fh, fw, c, oc]);
    addCase('Conv2D', attrs, [x, f],
            (a, b) => tf.conv2d(a, b, [sh, sw], pad, 'NHWC', [dh, dw]),
            { tol: accumulated(fh * fw * c, 16) });
  }
  for (let k = 0; k < 16; ++k) {
    const h = randInt(1, 6);
    const w = randInt(1, 6);
    const c = randInt(1, 3);
    const mult = randInt(1, 2);
    const fh = randInt(1, Math.min(3, h));
    const fw = randInt(1, Math.min(3, w));
    const padding = pick(['SAME', 'VALID']);
    // Depthwise strides are equal in rows and columns (both libraries require it).
    const s = randInt(1, 2);
    addCase('DepthwiseConv2dNative',
            { T: attr.type('float32'), strides: attr.ints([1, s, s, 1]), padding: attr.s(padding),
              dilations: attr.ints([1, 1, 1, 1]), data_format: attr.s('NHWC') },
            [randomTensor('float32', [randInt(1, 2), h, w, c]),
             randomTensor('float32', [fh, fw, c, mult])],
            (a, b) => tf.depthwiseConv2d(a, b, [s, s], padding.toLowerCase(), 'NHWC'),
            { tol: accumulated(fh * fw, 16) });
  }
  // Conv2DBackpropInput is tfjs's conv2dTranspose: the gradient of Conv2D for the input.
  for (let k = 0; k < 14; ++k) {
    const n = randInt(1, 2);
    const h = randInt(1, 6);
    const w = randInt(1, 6);
    const c = randInt(1, 3);
    const oc = randInt(1, 3);
    const fh = randInt(1, Math.min(3, h));
    const fw = randInt(1, Math.min(3, w));
    const padding = pick(['SAME', 'VALID']);
    const s = randInt(1, 2);
    const oh = convOutSize(h, fh, s, 1, padding);
    const ow = convOutSize(w, fw, s, 1, padding);
    addCase('Conv2DBackpropInput',
            { T: attr.type('float32'), strides: attr.ints([1, s, s, 1]), padding: attr.s(padding),
              dilations: attr.ints([1, 1, 1, 1]), data_format: attr.s('NHWC') },
            [int32s([n, h, w, c]), randomTensor('float32', [fh, fw, c, oc]),
             randomTensor('float32', [n, oh, ow, oc])],
            (sizes, f, dy) =>
              tf.conv2dTranspose(dy, f, [n, h, w, c], [s, s], padding.toLowerCase()),
            { tol: accumulated(fh * fw * oc, 16), outDtypes: ['float32'] });
  }
  for (const [op, fn] of [['MaxPool', tf.maxPool], ['AvgPool', tf.avgPool]]) {
    for (let k = 0; k < 16; ++k) {
      const h = randInt(1, 7);
      const w = randInt(1, 7);
      const kh = randInt(1, Math.min(3, h));
      const kw = randInt(1, Math.min(3, w));
      const sh = randInt(1, 3);
      const sw = randInt(1, 3);
      const padding = pick(['SAME', 'VALID']);
      // NaN is left out of MaxPool: TensorFlow's answer depends on the order of the comparisons
      // (its Eigen and oneDNN kernels differ); infinities are in.
      // -inf is left out too: a window of only -inf gives -inf in tfjs, and Eigen's pooling
      // reducer starts from lowest() (-3.4e38), as Tessera's kernel does.
      const x = randomTensor('float32', [randInt(1, 2), h, w, randInt(1, 3)],
                             { specials: k % 4 === 0 ? [Infinity] : false });
      addCase(op, { T: attr.type('float32'), ksize: attr.ints([1, kh, kw, 1]),
                    strides: attr.ints([1, sh, sw, 1]), padding: attr.s(padding),
                    data_format: attr.s('NHWC') },
              [x], (t) => fn(t, [kh, kw], [sh, sw], padding.toLowerCase()),
              { tol: accumulated(kh * kw, 4) });
    }
  }
  // BiasAdd in NHWC is a broadcast add over the last dimension (NCHW is not compared: tfjs
  // has no channels-first layouts).
  for (let k = 0; k < 10; ++k) {
    const shape = randomShape(randInt(2, 4), 4);
    const c = shape[shape.length - 1];
    addCase('BiasAdd', { T: attr.type('float32'), data_format: attr.s('NHWC') },
            [randomTensor('float32', shape, { specials: k % 3 === 0 }),
             randomTensor('float32', [c])],
            (x, b) => tf.add(x, b), { tol: kRounded });
  }
  for (let k = 0; k < 10; ++k) {
    const radius = randInt(0, 3);
    const bias = pick([1, 2, 0.5]);
    const alpha = pick([1, 0.5, 1e-4]);
    const beta = pick([0.5, 0.75, 1]);
    addCase('LRN', { T: attr.type('float32'), depth_radius: attr.i(radius), bias: attr.f(bias),
                     alpha: attr.f(alpha), beta: attr.f(beta) },
            [randomTensor('float32', [randInt(1, 2), randInt(1, 3), randInt(1, 3), randInt(1, 7)])],
            (x) => tf.localResponseNormalization(x, radius, bias, alpha, beta),
            { tol: { ulps: 64, atol: 1e-5 } });
  }
  // FusedBatchNormV3 for inference: output 0 (y) only; the others pass the statistics through.
  for (let k = 0; k < 10; ++k) {
    const shape = [randInt(1, 2), randInt(1, 3), randInt(1, 3), randInt(1, 4)];
    const c = shape[3];
    const epsilon = pick([0.001, 1e-5, 0.1]);
    addCase('FusedBatchNormV3',
            { T: attr.type('float32'), U: attr.type('float32'), epsilon: attr.f(epsilon),
              data_format: attr.s('NHWC'), is_training: attr.b(false) },
            [randomTensor('float32', shape), randomTensor('float32', [c]),
             randomTensor('float32', [c]), randomTensor('float32', [c]),
             randomTensor('float32', [c], { lo: 0, hi: 4 })],
            (x, scale, offset, mean, variance) =>
              tf.batchNorm(x, mean, variance, offset, scale, epsilon),
            { tol: { ulps: 64, atol: 1e-5 } });
  }
}

// ---- Gradients of convolutions, pooling and LRN, from tfjs's own gradients -------------------

// tfjs's kernel of that name (the CPU backend has TensorFlow's gradient kernels, which tfjs-core's
// public functions reach only through gradients, registered by the full tfjs package alone).
function runKernel(name, inputs, attrs) { return tf.engine().runKernel(name, inputs, attrs); }

function addGradientCases() {
  for (let k = 0; k < 12; ++k) {
    const n = randInt(1, 2);
    const h = randInt(1, 6);
    const w = randInt(1, 6);
    const c = randInt(1, 3);
    const oc = randInt(1, 3);
    const fh = randInt(1, Math.min(3, h));
    const fw = randInt(1, Math.min(3, w));
    const padding = pick(['SAME', 'VALID']);
    const s = randInt(1, 2);
    const oh = convOutSize(h, fh, s, 1, padding);
    const ow = convOutSize(w, fw, s, 1, padding);
    const attrs = { T: attr.type('float32'), strides: attr.ints([1, s, s, 1]),
                    padding: attr.s(padding), dilations: attr.ints([1, 1, 1, 1]),
                    data_format: attr.s('NHWC') };
    const pad = padding.toLowerCase();
    addCase('Conv2DBackpropFilter', attrs,
            [randomTensor('float32', [n, h, w, c]), int32s([fh, fw, c, oc]),
             randomTensor('float32', [n, oh, ow, oc])],
            (x, sizes, dy) => runKernel('Conv2DBackpropFilter', { x, dy },
                                        { strides: [s, s], pad, dataFormat: 'NHWC',
                                          filterShape: [fh, fw, c, oc] }),
            { tol: accumulated(n * oh * ow, 16), outDtypes: ['float32'] });
    const mult = randInt(1, 2);
    const dwAttrs = { ...attrs };
    const dyDepthwise = randomTensor('float32', [n, oh, ow, c * mult]);
    addCase('DepthwiseConv2dNativeBackpropInput', dwAttrs,
            [int32s([n, h, w, c]), randomTensor('float32', [fh, fw, c, mult]), dyDepthwise],
            (sizes, filter, dy) => runKernel('DepthwiseConv2dNativeBackpropInput', { dy, filter },
                                             { strides: [s, s], dilations: [1, 1], pad,
                                               inputShape: [n, h, w, c] }),
            { tol: accumulated(fh * fw * mult, 16), outDtypes: ['float32'] });
    addCase('DepthwiseConv2dNativeBackpropFilter', dwAttrs,
            [randomTensor('float32', [n, h, w, c]), int32s([fh, fw, c, mult]), dyDepthwise],
            (x, sizes, dy) => runKernel('DepthwiseConv2dNativeBackpropFilter', { x, dy },
                                        { strides: [s, s], dilations: [1, 1], pad,
                                          filterShape: [fh, fw, c, mult] }),
            { tol: accumulated(n * oh * ow, 16), outDtypes: ['float32'] });
  }
  for (let k = 0; k < 24; ++k) {
    const maxPool = k % 2 === 0;
    const shape = [randInt(1, 2), randInt(1, 6), randInt(1, 6), randInt(1, 3)];
    const kh = randInt(1, Math.min(3, shape[1]));
    const kw = randInt(1, Math.min(3, shape[2]));
    const sh = randInt(1, 3);
    const sw = randInt(1, 3);
    // tfjs's avgPoolGrad divides by the whole window where SAME padding cuts it (TensorFlow, like
    // the forward pass, by the elements inside): AvgPoolGrad is VALID only.
    const padding = maxPool ? pick(['SAME', 'VALID']) : 'VALID';
    const pad = padding.toLowerCase();
    const oh = convOutSize(shape[1], kh, sh, 1, padding);
    const ow = convOutSize(shape[2], kw, sw, 1, padding);
    const attrs = { T: attr.type('float32'), ksize: attr.ints([1, kh, kw, 1]),
                    strides: attr.ints([1, sh, sw, 1]), padding: attr.s(padding),
                    data_format: attr.s('NHWC') };
    const dy = randomTensor('float32', [shape[0], oh, ow, shape[3]]);
    if (maxPool) {
      // A fine grid: ties in a window (both send the gradient to the first maximum) are rare.
      const x = randomTensor('float32', shape, { grid: 4096 });
      const y = tf.tidy(() => {
        const t = tf.maxPool(toTf(x), [kh, kw], [sh, sw], pad);
        return tensor('float32', t.shape, Array.from(t.dataSync()));
      });
      addCase('MaxPoolGrad', attrs, [x, y, dy],
              (input, output, dy) => runKernel('MaxPoolGrad', { dy, input, output },
                                               { filterSize: [kh, kw], strides: [sh, sw], pad }),
              { tol: accumulated(kh * kw, 4) });
    } else {
      addCase('AvgPoolGrad', attrs, [int32s(shape), dy],
              (sizes, dy) => runKernel('AvgPoolGrad', { dy, input: tf.zeros(shape) },
                                       { filterSize: [kh, kw], strides: [sh, sw], pad }),
              { tol: accumulated(kh * kw, 4), outDtypes: ['float32'] });
    }
  }
  // EluGrad takes the ELU's output: computed by tfjs from random inputs.
  for (let k = 0; k < 8; ++k) {
    const shape = unaryShape();
    const x = randomTensor('float32', shape, { specials: [Infinity, -Infinity, 0] });
    const y = tf.tidy(() => {
      const t = tf.elu(toTf(x));
      return tensor('float32', t.shape, Array.from(t.dataSync()));
    });
    addCase('EluGrad', { T: attr.type('float32') }, [randomTensor('float32', shape), y],
            (dy, out) => runKernel('EluGrad', { dy, y: out }, {}), { tol: kRounded });
  }
  for (let k = 0; k < 8; ++k) {
    const radius = randInt(0, 2);
    const bias = pick([1, 2]);
    const alpha = pick([1, 0.5, 1e-4]);
    const beta = pick([0.5, 0.75, 1]);
    const shape = [1, randInt(1, 2), randInt(1, 2), randInt(1, 6)];
    const x = randomTensor('float32', shape);
    const y = tf.tidy(() => {
      const t = tf.localResponseNormalization(toTf(x), radius, bias, alpha, beta);
      return tensor('float32', t.shape, Array.from(t.dataSync()));
    });
    addCase('LRNGrad', { T: attr.type('float32'), depth_radius: attr.i(radius),
                         bias: attr.f(bias), alpha: attr.f(alpha), beta: attr.f(beta) },
            [randomTensor('float32', shape), x, y],
            (dy, x, y) => runKernel('LRNGrad', { x, y, dy },
                                    { depthRadius: radius, bias, alpha, beta }),
            { tol: { ulps: 256, atol: 1e-5 } });
  }
}

// ---- Softmax and losses --------------------------------------------------------------------

function addSoftmaxCases() {
  for (const [op, fn] of [['Softmax', tf.softmax], ['LogSoftmax', tf.logSoftmax]]) {
    for (let k = 0; k < 14; ++k) {
      const shape = randomShape(randInt(1, 3), 6);
      const specials = k % 4 === 0 ? [-Infinity] : k % 4 === 1 ? [Infinity, NaN, -Infinity] : false;
      addCase(op, { T: attr.type('float32') },
              [randomTensor('float32', shape, { lo: -8, hi: 8, specials })], (x) => fn(x),
              { tol: { ulps: 64, atol: 2e-6 } });
    }
  }
  const softmaxLoss = (labels, logits) =>
    tf.neg(tf.sum(tf.mul(labels, tf.logSoftmax(logits)), -1));
  for (let k = 0; k < 10; ++k) {
    const b = randInt(1, 4);
    const c = randInt(1, 5);
    const labels = randomTensor('float32', [b, c], { lo: 0, hi: 1 });
    addCase('SoftmaxCrossEntropyWithLogits', { T: attr.type('float32') },
            [randomTensor('float32', [b, c], { lo: -6, hi: 6 }), labels],
            (logits, l) => [softmaxLoss(l, logits), tf.sub(tf.softmax(logits), l)],
            { tol: { ulps: 64, atol: 1e-5 } });
  }
  for (let k = 0; k < 10; ++k) {
    const b = randInt(1, 4);
    const c = randInt(1, 5);
    const labels = int32s(randomInts(b, 0, c - 1));
    addCase('SparseSoftmaxCrossEntropyWithLogits',
            { T: attr.type('float32'), Tlabels: attr.type('int32') },
            [randomTensor('float32', [b, c], { lo: -6, hi: 6 }), labels],
            (logits, l) => {
              const oneHot = tf.tensor(Array.from(labels.values, (label) => {
                const row = new Array(c).fill(0);
                row[label] = 1;
                return row;
              }).flat(), [b, c]);
              return [softmaxLoss(oneHot, logits), tf.sub(tf.softmax(logits), oneHot)];
            },
            { tol: { ulps: 64, atol: 1e-5 }, outDtypes: ['float32'] });
  }
}

// ---- Data movement -------------------------------------------------------------------------

const kMoveDtypes = ['float32', 'float32', 'int32', 'bool'];

function addConcatPackSplitCases() {
  for (let k = 0; k < 20; ++k) {
    const dtype = pick(kMoveDtypes);
    const rank = randInt(1, 4);
    const shape = randomShape(rank, 4);
    const axis = randInt(-rank, rank - 1);
    const a = axis < 0 ? axis + rank : axis;
    const n = randInt(2, 4);  // ConcatV2 takes at least two values
    const mismatch = k === 19;  // another dimension differs
    const inputs = [];
    for (let i = 0; i < n; ++i) {
      const s = shape.slice();
      s[a] = randomDim(3);
      if (mismatch && i === n - 1 && rank > 1) s[(a + 1) % rank] += 1;
      inputs.push(randomTensor(dtype, s, { specials: k % 4 === 0 }));
    }
    if (mismatch && rank === 1) continue;
    addCase('ConcatV2', { N: attr.i(n), T: attr.type(dtype), Tidx: attr.type('int32') },
            [...inputs, int32Scalar(axis)], (...ts) => tf.concat(ts.slice(0, n), axis),
            { expectError: mismatch });
  }
  for (let k = 0; k < 12; ++k) {
    const dtype = pick(kMoveDtypes);
    const shape = randomShape(randInt(0, 3), 3);
    const n = randInt(1, 3);
    const axis = randInt(-shape.length - 1, shape.length);
    const inputs = [];
    for (let i = 0; i < n; ++i) inputs.push(randomTensor(dtype, shape));
    addCase('Pack', { N: attr.i(n), T: attr.type(dtype), axis: attr.i(axis) }, inputs,
            (...ts) => tf.stack(ts, axis));
  }
  for (let k = 0; k < 10; ++k) {
    const dtype = pick(kMoveDtypes);
    const rank = randInt(1, 3);
    const shape = randomShape(rank, 3, false);
    const axis = randInt(-rank, rank - 1);
    const num = shape[axis < 0 ? axis + rank : axis];
    addCase('Unpack', { num: attr.i(num), T: attr.type(dtype), axis: attr.i(axis) },
            [randomTensor(dtype, shape)], (t) => tf.unstack(t, axis));
  }
  for (let k = 0; k < 12; ++k) {
    const dtype = pick(kMoveDtypes);
    const rank = randInt(1, 3);
    const shape = randomShape(rank, 3);
    const axis = randInt(-rank, rank - 1);
    const a = axis < 0 ? axis + rank : axis;
    const num = randInt(1, 3);
    shape[a] = num * randInt(0, 2);
    addCase('Split', { num_split: attr.i(num), T: attr.type(dtype) },
            [int32Scalar(axis), randomTensor(dtype, shape)], (d, t) => tf.split(t, num, axis),
            { outDtypes: [dtype] });
  }
  for (let k = 0; k < 12; ++k) {
    const dtype = pick(kMoveDtypes);
    const rank = randInt(1, 3);
    const shape = randomShape(rank, 3);
    const axis = randInt(-rank, rank - 1);
    const a = axis < 0 ? axis + rank : axis;
    const sizes = [];
    const parts = randInt(1, 4);
    for (let i = 0; i < parts; ++i) sizes.push(randInt(0, 3));
    shape[a] = sizes.reduce((x, y) => x + y, 0);
    const given = sizes.slice();
    if (parts > 1 && chance(0.4)) given[randInt(0, parts - 1)] = -1;  // the rest of the dimension
    addCase('SplitV', { num_split: attr.i(parts), T: attr.type(dtype), Tlen: attr.type('int32') },
            [randomTensor(dtype, shape), int32s(given), int32Scalar(axis)],
            (t) => tf.split(t, given, axis));
  }
}

// TensorFlow's StridedSlice (ValidateStridedSliceOp: the sparse spec made dense, each dimension
// canonicalized), on a tensor description: {shape, values} or {error}.
function stridedSliceReference(input, shape, begin, end, strides, masks) {
  const dims = shape.length;
  let n = begin.length;
  const b = begin.slice();
  const e = end.slice();
  const s = strides.slice();
  let ellipsisMask = masks.ellipsisMask;
  if (ellipsisMask === 0) {  // an implicit ellipsis at the end
    ellipsisMask |= 1 << n;
    b.push(0); e.push(0); s.push(1);
    ++n;
  }
  let addAxisAfterEllipsis = 0;
  let seenEllipsis = false;
  for (let i = 0; i < n; ++i) {
    if (seenEllipsis && (masks.newAxisMask >> i) & 1) ++addAxisAfterEllipsis;
    if ((ellipsisMask >> i) & 1) seenEllipsis = true;
  }
  const dense = [];  // per input dimension: {begin, end, stride, beginMasked, endMasked, shrink}
  const finalShape = [];  // dense index, or 'new'
  let full = 0;
  for (let i = 0; i < n; ++i) {
    if ((ellipsisMask >> i) & 1) {
      const next = Math.min(dims - (n - i) + 1 + addAxisAfterEllipsis, dims);
      for (; full < next; ++full) {
        dense[full] = { begin: 0, end: 0, stride: 1, beginMasked: true, endMasked: true };
        finalShape.push(full);
      }
    } else if ((masks.newAxisMask >> i) & 1) {
      finalShape.push('new');
    } else {
      if (full === dims) return { error: 'index out of range using input dim' };
      const shrink = ((masks.shrinkMask >> i) & 1) === 1;
      dense[full] = { begin: b[i], end: e[i], stride: s[i], shrink,
                      beginMasked: ((masks.beginMask >> i) & 1) === 1,
                      endMasked: ((masks.endMask >> i) & 1) === 1 };
      if (!shrink) finalShape.push(full);
      ++full;
    }
  }
  const starts = [];
  const steps = [];
  const sizes = [];
  for (let d = 0; d < dims; ++d) {
    const spec = dense[d] || { begin: 0, end: 0, stride: 1, beginMasked: true, endMasked: true };
    const size = shape[d];
    const stride = spec.stride;
    if (stride === 0) return { error: 'strides must be non-zero' };
    if (spec.shrink) {
      if (stride <= 0) return { error: 'only stride 1 allowed on non-range indexing' };
      const index = spec.begin < 0 ? spec.begin + size : spec.begin;
      if (index < 0 || index >= size) return { error: 'slice index out of bounds' };
      starts.push(index); steps.push(1); sizes.push(1);
      continue;
    }
    const lo = stride > 0 ? 0 : -1;
    const hi = stride > 0 ? size : size - 1;
    const canonical = (x, masked, isEnd) => {
      if (masked) return (stride > 0) !== isEnd ? lo : hi;
      const fwd = x < 0 ? x + size : x;
      return Math.min(Math.max(fwd, lo), hi);
    };
    const first = canonical(spec.begin, spec.beginMasked, false);
    const last = canonical(spec.end, spec.endMasked, true);
    const interval = last - first;
    const count = interval === 0 || (interval < 0) !== (stride < 0)
        ? 0 : Math.ceil(interval / stride);
    starts.push(first); steps.push(stride); sizes.push(count);
  }
  const strideOf = [];
  let acc = 1;
  for (let d = dims - 1; d >= 0; --d) { strideOf[d] = acc; acc *= shape[d]; }
  const values = [];
  const total = sizes.reduce((x, y) => x * y, 1);
  for (let flat = 0; flat < total; ++flat) {
    let rest = flat;
    let offset = 0;
    for (let d = dims - 1; d >= 0; --d) {
      const k = rest % sizes[d];
      rest = Math.floor(rest / sizes[d]);
      offset += (starts[d] + k * steps[d]) * strideOf[d];
    }
    values.push(input.values[offset]);
  }
  const outShape = finalShape.map((x) => (x === 'new' ? 1 : sizes[x]));
  return { shape: outShape, values };
}

function addSliceCases() {
  for (let k = 0; k < 16; ++k) {
    const dtype = pick(kMoveDtypes);
    const shape = randomShape(randInt(1, 4), 5);
    const begin = shape.map((d) => randInt(0, d));
    const size = shape.map((d, i) => (chance(0.2) ? -1 : randInt(0, d - begin[i])));
    addCase('Slice', { T: attr.type(dtype), Index: attr.type('int32') },
            [randomTensor(dtype, shape), int32s(begin), int32s(size)],
            (t) => tf.slice(t, begin, size));
  }
  for (let k = 0; k < 40; ++k) {
    const dtype = pick(kMoveDtypes);
    const rank = randInt(1, 4);
    const shape = randomShape(rank, 5);
    const n = rank;  // one spec entry per dimension, unless an ellipsis stands for some
    const begin = [];
    const end = [];
    const strides = [];
    let beginMask = 0;
    let endMask = 0;
    let shrinkMask = 0;
    let ellipsisMask = 0;
    let newAxisMask = 0;
    let dim = 0;
    const useEllipsis = rank >= 2 && chance(0.2);
    const specLength = useEllipsis ? randInt(1, n - 1) + 1 : n;
    const ellipsisAt = useEllipsis ? randInt(0, specLength - 1) : -1;
    for (let i = 0; i < specLength; ++i) {
      if (i === ellipsisAt) {
        ellipsisMask |= 1 << i;
        begin.push(0); end.push(0); strides.push(1);
        dim = rank - (specLength - 1 - i);
        continue;
      }
      const d = shape[dim++];
      if (chance(0.08)) {  // a new axis of size 1 at this position
        newAxisMask |= 1 << i;
        begin.push(0); end.push(1); strides.push(1);
        --dim;
        continue;
      }
      if (d > 0 && chance(0.15)) {  // one index, dimension removed
        shrinkMask |= 1 << i;
        const idx = randInt(-d, d - 1);
        begin.push(idx); end.push(idx + 1); strides.push(1);
        continue;
      }
      const stride = pick([1, 1, 2, 3, -1, -2]);
      begin.push(randInt(-d - 1, d + 1));
      end.push(randInt(-d - 1, d + 1));
      strides.push(stride);
      if (chance(0.2)) beginMask |= 1 << i;
      if (chance(0.2)) endMask |= 1 << i;
    }
    const values = randomTensor(dtype, shape);
    addCase('StridedSlice',
            { T: attr.type(dtype), Index: attr.type('int32'), begin_mask: attr.i(beginMask),
              end_mask: attr.i(endMask), ellipsis_mask: attr.i(ellipsisMask),
              new_axis_mask: attr.i(newAxisMask), shrink_axis_mask: attr.i(shrinkMask) },
            [values, int32s(begin), int32s(end), int32s(strides)],
            (t) => tf.stridedSlice(t, begin, end, strides, beginMask, endMask, ellipsisMask,
                                   newAxisMask, shrinkMask),
            // tfjs's stridedSlice misreads some combinations of masks.
            { reference: () => stridedSliceReference(
                values, shape, begin, end, strides,
                { beginMask, endMask, ellipsisMask, newAxisMask, shrinkMask }) });
  }
}

function addShapeCases() {
  for (let k = 0; k < 12; ++k) {
    const dtype = pick(kMoveDtypes);
    const rank = randInt(0, 5);
    const shape = randomShape(rank, 4);
    const perm = shuffle([...Array(rank).keys()]);
    addCase('Transpose', { T: attr.type(dtype), Tperm: attr.type('int32') },
            [randomTensor(dtype, shape), int32s(perm)], (t) => tf.transpose(t, perm));
  }
  for (let k = 0; k < 14; ++k) {
    const dtype = pick(kMoveDtypes);
    const shape = randomShape(randInt(1, 4), 4);
    const n = numElements(shape);
    // A new shape of the same size, one dimension maybe -1 (inferred); the last case has the
    // wrong size.
    const target = shuffle(shape.concat(chance(0.3) ? [1] : []));
    const bad = k === 13;
    if (bad) target.push(2);
    if (!bad && n > 0 && chance(0.4)) target[randInt(0, target.length - 1)] = -1;
    if (bad && n === 0) continue;
    addCase('Reshape', { T: attr.type(dtype), Tshape: attr.type('int32') },
            [randomTensor(dtype, shape), int32s(target)], (t) => tf.reshape(t, target),
            { expectError: bad });
  }
  for (let k = 0; k < 10; ++k) {
    const dtype = pick(kMoveDtypes);
    const rank = randInt(0, 3);
    const axis = randInt(-rank - 1, rank);
    addCase('ExpandDims', { T: attr.type(dtype), Tdim: attr.type('int32') },
            [randomTensor(dtype, randomShape(rank, 3)), int32Scalar(axis)],
            (t) => tf.expandDims(t, axis));
  }
  for (let k = 0; k < 10; ++k) {
    const dtype = pick(kMoveDtypes);
    const shape = randomShape(randInt(1, 4), 3).map((d) => (chance(0.4) ? 1 : d));
    const ones = shape.map((d, i) => (d === 1 ? i : -1)).filter((i) => i >= 0);
    const dims = chance(0.3) ? [] : ones.filter(() => chance(0.6)).map(
        (i) => (chance(0.3) ? i - shape.length : i));
    addCase('Squeeze', { T: attr.type(dtype), squeeze_dims: attr.ints(dims) },
            [randomTensor(dtype, shape)], (t) => tf.squeeze(t, dims.length ? dims : undefined));
  }
  for (let k = 0; k < 10; ++k) {
    const dtype = pick(kMoveDtypes);
    const shape = randomShape(randInt(1, 3), 3);
    const multiples = shape.map(() => randInt(0, 3) || randInt(0, 2));
    addCase('Tile', { T: attr.type(dtype), Tmultiples: attr.type('int32') },
            [randomTensor(dtype, shape), int32s(multiples)], (t) => tf.tile(t, multiples));
  }
  for (let k = 0; k < 10; ++k) {
    const dtype = pick(kMoveDtypes);
    const rank = randInt(0, 3);
    const shape = randomShape(rank, 3);
    // New leading dimensions are not empty: tfjs broadcasts to size 1 there.
    const target = [...randomShape(randInt(0, 2), 3, false),
                    ...shape.map((d) => (d === 1 ? randInt(1, 3) : d))];
    addCase('BroadcastTo', { T: attr.type(dtype), Tidx: attr.type('int32') },
            [randomTensor(dtype, shape), int32s(target)], (t) => tf.broadcastTo(t, target));
  }
  for (let k = 0; k < 10; ++k) {
    const dtype = pick(kMoveDtypes);
    const rank = randInt(1, 4);
    const shape = randomShape(rank, 4);
    const axes = shuffle([...Array(rank).keys()]).slice(0, randInt(0, rank)).map(
        (a) => (chance(0.3) ? a - rank : a));
    addCase('ReverseV2', { T: attr.type(dtype), Tidx: attr.type('int32') },
            [randomTensor(dtype, shape), int32s(axes)], (t) => tf.reverse(t, axes));
  }
}

function addPadGatherCases() {
  for (let k = 0; k < 12; ++k) {
    const dtype = pick(['float32', 'int32']);
    const shape = randomShape(randInt(1, 4), 3);  // tfjs refuses to pad a scalar
    const paddings = shape.map(() => [randInt(0, 2), randInt(0, 2)]);
    addCase('Pad', { T: attr.type(dtype), Tpaddings: attr.type('int32') },
            [randomTensor(dtype, shape), int32s(paddings.flat(), [shape.length, 2])],
            (t) => tf.pad(t, paddings));
  }
  for (let k = 0; k < 10; ++k) {
    const dtype = pick(['float32', 'int32']);
    const shape = randomShape(randInt(1, 3), 3);
    const paddings = shape.map(() => [randInt(0, 2), randInt(0, 2)]);
    const value = dtype === 'float32' ? pick([1.5, -2, NaN]) : randInt(-5, 5);
    addCase('PadV2', { T: attr.type(dtype), Tpaddings: attr.type('int32') },
            [randomTensor(dtype, shape), int32s(paddings.flat(), [shape.length, 2]),
             tensor(dtype, [], [value])],
            (t) => tf.pad(t, paddings, value));
  }
  for (let k = 0; k < 14; ++k) {
    const dtype = pick(['float32', 'int32']);
    const mode = k % 2 === 0 ? 'REFLECT' : 'SYMMETRIC';
    const shape = randomShape(randInt(1, 3), 4, false);
    // REFLECT pads by less than the dimension, SYMMETRIC by at most the dimension.
    const limit = (d) => (mode === 'REFLECT' ? d - 1 : d);
    const paddings = shape.map((d) => [randInt(0, limit(d)), randInt(0, limit(d))]);
    addCase('MirrorPad', { T: attr.type(dtype), Tpaddings: attr.type('int32'), mode: attr.s(mode) },
            [randomTensor(dtype, shape), int32s(paddings.flat(), [shape.length, 2])],
            (t) => tf.mirrorPad(t, paddings, mode.toLowerCase()));
  }
  for (let k = 0; k < 20; ++k) {
    const dtype = pick(kMoveDtypes);
    const rank = randInt(1, 3);
    const shape = randomShape(rank, 4);
    const axis = randInt(-rank, rank - 1);
    const a = axis < 0 ? axis + rank : axis;
    const size = shape[a];
    const outOfRange = k >= 18 ;  // an index past the end: an error in both
    const batchDims = a > 0 && !outOfRange && chance(0.3) ? 1 : 0;
    const indexShape = batchDims ? [shape[0], ...randomShape(randInt(0, 1), 3)]
                                 : randomShape(randInt(0, 2), 3);
    let indices = randomInts(numElements(indexShape), 0, Math.max(0, size - 1));
    if (size === 0 && numElements(indexShape) > 0) continue;
    if (outOfRange) {
      // TensorFlow checks indices only when there is something to gather (no empty dimension
      // in params); tfjs always does.
      if (indices.length === 0 || numElements(shape) === 0) continue;
      indices[0] = size + randInt(0, 2);
    }
    addCase('GatherV2', { Tparams: attr.type(dtype), Tindices: attr.type('int32'),
                          Taxis: attr.type('int32'), batch_dims: attr.i(batchDims) },
            [randomTensor(dtype, shape), int32s(indices, indexShape), int32Scalar(axis)],
            (t, i) => tf.gather(t, i, axis, batchDims), { expectError: outOfRange });
  }
  for (let k = 0; k < 10; ++k) {
    const indexShape = randomShape(randInt(0, 2), 4);
    const depth = randInt(2, 4);  // tfjs refuses a depth below 2
    const on = pick([1, 5, -0.5]);
    const off = pick([0, -1, 2.5]);
    addCase('OneHot', { T: attr.type('float32'), TI: attr.type('int32'), axis: attr.i(-1) },
            [int32s(randomInts(numElements(indexShape), -1, depth), indexShape),
             int32Scalar(depth), floatScalar(on), floatScalar(off)],
            (i) => tf.oneHot(i, depth, on, off, 'float32'), { outDtypes: ['float32'] });
  }
}

function addFillCastCases() {
  for (let k = 0; k < 8; ++k) {
    const dtype = pick(kMoveDtypes);
    const dims = randomShape(randInt(0, 3), 4);
    const value = dtype === 'float32' ? pick([2.5, -1, NaN, Infinity]) : dtype === 'int32'
        ? randInt(-9, 9) : randInt(0, 1);
    addCase('Fill', { T: attr.type(dtype), index_type: attr.type('int32') },
            [int32s(dims), tensor(dtype, [], [value])],
            () => tf.fill(dims, dtype === 'bool' ? value === 1 : value, dtype),
            { outDtypes: [dtype] });
  }
  for (const [op, fn] of [['ZerosLike', tf.zerosLike], ['OnesLike', tf.onesLike],
                          ['Identity', tf.clone], ['StopGradient', tf.clone],
                          ['Snapshot', tf.clone]]) {
    for (const dtype of ['float32', 'int32', 'bool']) {
      addCase(op, { T: attr.type(dtype) }, [randomTensor(dtype, unaryShape())], fn);
    }
  }
  for (let k = 0; k < 12; ++k) {
    const dtype = k % 3 === 2 ? 'int32' : 'float32';
    let start;
    let limit;
    let delta;
    // TensorFlow refuses a delta pointing away from the limit; tfjs returns an empty range.
    if (dtype === 'int32') {
      start = randInt(-10, 10);
      delta = pick([1, 2, 3, -1, -2]);
      limit = start + delta * randInt(0, 6) + (chance(0.5) ? Math.sign(delta) : 0);
    } else {
      start = Math.fround(randInt(-40, 40) / 4);
      delta = pick([0.5, 1.25, -0.75, 2]);
      limit = Math.fround(start + delta * randInt(0, 7) + (chance(0.5) ? delta / 4 : 0));
    }
    addCase('Range', { Tidx: attr.type(dtype) },
            [tensor(dtype, [], [start]), tensor(dtype, [], [limit]), tensor(dtype, [], [delta])],
            () => tf.range(start, limit, delta, dtype), { tol: kRounded });
  }
  // Cast: float to int32 truncates toward zero in both; NaN, infinities and values outside
  // int32 are left out (undefined in C++, 0 or wrapped in tfjs).
  const kCasts = [['float32', 'int32'], ['int32', 'float32'], ['bool', 'float32'],
                  ['float32', 'bool'], ['int32', 'bool'], ['bool', 'int32']];
  for (const [src, dst] of kCasts) {
    for (let k = 0; k < 5; ++k) {
      const options = { lo: -100, hi: 100, specials: dst === 'bool' ? true : [0, -0],
                        ilo: -3, ihi: 3, grid: 4 };
      addCase('Cast', { SrcT: attr.type(src), DstT: attr.type(dst), Truncate: attr.b(false) },
              [randomTensor(src, unaryShape(), options)], (t) => tf.cast(t, dst),
              { outDtypes: [dst] });
    }
  }
}

// ---- Image and detection ops ---------------------------------------------------------------

// TensorFlow's source pixel of ResizeNearestNeighbor, computed in float32 as its kernel does:
// tfjs computes the scale and the coordinate in double, which can fall on the other side of an
// integer. Used as the reference that drops such cases.
function nearestResizeReference(images, size, align, half) {
  const [batch, height, width, depth] = images.shape;
  const f = Math.fround;
  const scale = (inSize, outSize) => (align && outSize > 1 ? f((inSize - 1) / (outSize - 1))
                                                           : f(inSize / outSize));
  const source = (i, inSize, outSize) => {
    const s = scale(inSize, outSize);
    const x = half ? f(f(i + 0.5) * s) : f(i * s);
    let index = Math.min(inSize - 1, align ? Math.round(x) : Math.floor(x));
    if (half) index = Math.max(0, index);
    return index;
  };
  const values = [];
  for (let b = 0; b < batch; ++b) {
    for (let y = 0; y < size[0]; ++y) {
      for (let x = 0; x < size[1]; ++x) {
        const sy = source(y, height, size[0]);
        const sx = source(x, width, size[1]);
        for (let c = 0; c < depth; ++c) {
          values.push(images.values[((b * height + sy) * width + sx) * depth + c]);
        }
      }
    }
  }
  return { shape: [batch, size[0], size[1], depth], values };
}

// TensorFlow's non-max suppression (IOU and scores in float32, as its kernel computes them), the
// reference for tfjs's, which differs in three rules: it suppresses a box whose IOU *equals* the
// threshold (TensorFlow: only above it), and with soft-NMS it still drops boxes at or above the
// IOU threshold and gives them weight 0 (TensorFlow ignores the IOU threshold then). Cases where
// these rules matter are dropped.
function nmsReference(boxes, scores, maxOutput, iouThreshold, scoreThreshold, sigma) {
  const f = Math.fround;
  const iou = (i, j) => {
    const b = (k, c) => boxes[k * 4 + c];
    const yminI = Math.min(b(i, 0), b(i, 2)); const xminI = Math.min(b(i, 1), b(i, 3));
    const ymaxI = Math.max(b(i, 0), b(i, 2)); const xmaxI = Math.max(b(i, 1), b(i, 3));
    const yminJ = Math.min(b(j, 0), b(j, 2)); const xminJ = Math.min(b(j, 1), b(j, 3));
    const ymaxJ = Math.max(b(j, 0), b(j, 2)); const xmaxJ = Math.max(b(j, 1), b(j, 3));
    const areaI = f(f(ymaxI - yminI) * f(xmaxI - xminI));
    const areaJ = f(f(ymaxJ - yminJ) * f(xmaxJ - xminJ));
    if (areaI <= 0 || areaJ <= 0) return 0;
    const inter = f(Math.max(f(Math.min(ymaxI, ymaxJ) - Math.max(yminI, yminJ)), 0) *
                    Math.max(f(Math.min(xmaxI, xmaxJ) - Math.max(xminI, xminJ)), 0));
    return f(inter / f(f(areaI + areaJ) - inter));
  };
  const soft = sigma > 0;
  const scale = soft ? f(-0.5 / sigma) : 0;
  const queue = [];
  scores.forEach((s, i) => { if (s > scoreThreshold) queue.push({ i, s, begin: 0 }); });
  const before = (a, b) => a.s > b.s || (a.s === b.s && a.i < b.i);
  const selected = [];
  while (selected.length < maxOutput && queue.length > 0) {
    let best = 0;
    for (let k = 1; k < queue.length; ++k) if (before(queue[k], queue[best])) best = k;
    const next = queue.splice(best, 1)[0];
    const original = next.s;
    let suppressed = false;
    for (let j = selected.length - 1; j >= next.begin; --j) {
      const o = iou(next.i, selected[j]);
      const weight = soft || o <= iouThreshold ? f(Math.exp(f(f(scale * o) * o))) : 0;
      next.s = f(next.s * weight);
      if (!soft && o > iouThreshold) { suppressed = true; break; }
      if (next.s <= scoreThreshold) break;
    }
    next.begin = selected.length;
    if (suppressed) continue;
    if (next.s === original) selected.push(next.i);
    else if (next.s > scoreThreshold) queue.push(next);
  }
  return { shape: [selected.length], values: selected };
}

// A reference's indices padded with zeros to `length`.
function padded(expected, length) {
  const values = expected.values.slice();
  while (values.length < length) values.push(0);
  return { shape: [values.length], values };
}

function addImageCases() {
  const kBilinearTol = { ulps: 16, atol: 1e-5 };
  for (let k = 0; k < 24; ++k) {
    const dtype = pick(['float32', 'int32']);
    const align = k % 3 === 1;
    const half = k % 3 === 2;
    const shape = [randInt(1, 2), randInt(1, 4), randInt(1, 4), randInt(1, 3)];
    const size = [randInt(1, 6), randInt(1, 6)];
    const images = randomTensor(dtype, shape);
    const attrs = { T: attr.type(dtype), align_corners: attr.b(align),
                    half_pixel_centers: attr.b(half) };
    addCase('ResizeBilinear', attrs, [images, int32s(size)],
            (t) => tf.image.resizeBilinear(t, size, align, half),
            { outDtypes: ['float32'], tol: kBilinearTol });
    addCase('ResizeNearestNeighbor', attrs, [images, int32s(size)],
            (t) => tf.image.resizeNearestNeighbor(t, size, align, half),
            { reference: () => nearestResizeReference(images, size, align, half), tol: kExact });
  }
  // ResizeBilinearGrad and ResizeNearestNeighborGrad have no cases: tfjs's kernels ignore
  // half_pixel_centers, its nearest-neighbour gradient spreads each gradient over a window
  // instead of summing it into the pixel the forward op copied (and loops forever with
  // align_corners and a dimension of 1), and its bilinear one disagreed on shapes. The kernel
  // tests check both gradients as the adjoints of the forward ops instead.
  for (let k = 0; k < 20; ++k) {
    const method = k % 2 === 0 ? 'bilinear' : 'nearest';
    const shape = [randInt(1, 2), randInt(1, 5), randInt(1, 5), randInt(1, 2)];
    const numBoxes = randInt(1, 3);
    // Nearest rounds the sampling position: crop sizes whose step divides exactly (1, 2, 3, 5)
    // keep float32 (TensorFlow) and double (tfjs) positions on the same side of each .5.
    const cropSize = method === 'nearest' ? [pick([1, 2, 3, 5]), pick([1, 2, 3, 5])]
                                          : [randInt(1, 4), randInt(1, 4)];
    const extrapolation = pick([0, 1.5]);
    const boxInd = Array.from({ length: numBoxes }, () => randInt(0, shape[0] - 1));
    addCase('CropAndResize',
            { T: attr.type('float32'), method: attr.s(method),
              extrapolation_value: attr.f(extrapolation) },
            [randomTensor('float32', shape),
             tensor('float32', [numBoxes, 4], randomFloats(numBoxes * 4, { lo: -0.25, hi: 1.25, grid: 8 })),
             int32s(boxInd), int32s(cropSize)],
            (image, boxes, ind) => tf.image.cropAndResize(image, boxes, ind, cropSize, method,
                                                          extrapolation),
            { outDtypes: ['float32'], tol: { ulps: 16, atol: 1e-4 } });
  }
  for (let k = 0; k < 36; ++k) {
    const version = [3, 4, 5][k % 3];
    const n = randInt(1, 8);
    const boxes = randomFloats(n * 4, { lo: 0, hi: 3, grid: 4 });
    // Few distinct scores: many ties.
    const scores = Array.from({ length: n }, () => pick([0.1, 0.25, 0.5, 0.75, 0.9]));
    const maxOutput = randInt(0, n + 1);
    const soft = version === 5 && k % 2 === 0;
    // With soft-NMS TensorFlow ignores the IOU threshold; 1 makes tfjs ignore it too (but for
    // identical boxes, which the reference drops).
    const iouThreshold = soft ? 1 : pick([0, 0.25, 0.5, 0.7]);
    const scoreThreshold = pick([-1, 0.2, 0.5]);
    const sigma = soft ? pick([0.5, 1]) : 0;
    const inputs = [tensor('float32', [n, 4], boxes), tensor('float32', [n], scores),
                    int32Scalar(maxOutput), floatScalar(iouThreshold), floatScalar(scoreThreshold)];
    const reference = () => nmsReference(new Float32Array(boxes), new Float32Array(scores),
                                         maxOutput, Math.fround(iouThreshold),
                                         Math.fround(scoreThreshold), sigma);
    if (version === 3) {
      addCase('NonMaxSuppressionV3', { T: attr.type('float32'), T_threshold: attr.type('float32') },
              inputs, (b, s) => tf.image.nonMaxSuppression(b, s, maxOutput, iouThreshold,
                                                           scoreThreshold),
              { outDtypes: ['int32'], reference });
    } else if (version === 4) {
      const pad = chance(0.5);
      addCase('NonMaxSuppressionV4',
              { T: attr.type('float32'), T_threshold: attr.type('float32'),
                pad_to_max_output_size: attr.b(pad) },
              inputs, (b, s) => {
                const r = tf.image.nonMaxSuppressionPadded(b, s, maxOutput, iouThreshold,
                                                           scoreThreshold, pad);
                return [r.selectedIndices, r.validOutputs];
              },
              { outDtypes: ['int32'], reference: () => padded(reference(), pad ? maxOutput : 0) });
    } else {
      // tfjs's V5 has no padding and no valid_outputs output: the count is its length.
      addCase('NonMaxSuppressionV5',
              { T: attr.type('float32'), pad_to_max_output_size: attr.b(false) },
              [...inputs, floatScalar(sigma)], (b, s) => {
                const r = tf.image.nonMaxSuppressionWithScore(b, s, maxOutput, iouThreshold,
                                                              scoreThreshold, sigma);
                return [r.selectedIndices, r.selectedScores,
                        tf.scalar(r.selectedIndices.shape[0], 'int32')];
              },
              { outDtypes: ['int32', 'float32', 'int32'], reference,
                tol: { ulps: 32, atol: 1e-6 } });
    }
  }
}

// 3-D convolutions and poolings, NDHWC (tfjs has no channels-first layouts).
function addConv3DCases() {
  const randomVolume = (maxSide) => [randInt(1, 2), randInt(1, maxSide), randInt(1, maxSide),
                                     randInt(1, maxSide), randInt(1, 3)];
  for (let k = 0; k < 16; ++k) {
    const shape = randomVolume(5);
    const fs = shape.slice(1, 4).map((d) => randInt(1, Math.min(3, d)));
    const oc = randInt(1, 3);
    const padding = pick(['SAME', 'VALID']);
    // As for Conv2D, tfjs refuses strides and dilations both above 1.
    const dilated = chance(0.25);
    // Strides stay within the window in every 3-D case: where a stride exceeds the window tfjs's
    // 3-D SAME padding goes negative (TensorFlow, and tfjs's 2-D code, clamp it to 0), and its
    // MaxPool3DGrad also differs there (see below).
    const strides = fs.map((f) => (dilated ? 1 : randInt(1, Math.min(2, f))));
    const dilations = [0, 1, 2].map(() => (dilated ? randInt(1, 2) : 1));
    if (padding === 'VALID' && fs.some((f, i) => (f - 1) * dilations[i] + 1 > shape[i + 1])) {
      continue;
    }
    addCase('Conv3D',
            { T: attr.type('float32'), strides: attr.ints([1, ...strides, 1]),
              padding: attr.s(padding), dilations: attr.ints([1, ...dilations, 1]),
              data_format: attr.s('NDHWC') },
            [randomTensor('float32', shape), randomTensor('float32', [...fs, shape[4], oc])],
            (x, f) => tf.conv3d(x, f, strides, padding.toLowerCase(), 'NDHWC', dilations),
            { tol: accumulated(fs[0] * fs[1] * fs[2] * shape[4], 16) });
  }
  // The gradients: tfjs's kernels take no dilations.
  for (let k = 0; k < 12; ++k) {
    const shape = randomVolume(5);
    const [n, c] = [shape[0], shape[4]];
    const fs = shape.slice(1, 4).map((d) => randInt(1, Math.min(3, d)));
    const oc = randInt(1, 3);
    const padding = pick(['SAME', 'VALID']);
    const strides = fs.map((f) => randInt(1, Math.min(2, f)));
    const out = [0, 1, 2].map((i) => convOutSize(shape[i + 1], fs[i], strides[i], 1, padding));
    const attrs = { T: attr.type('float32'), strides: attr.ints([1, ...strides, 1]),
                    padding: attr.s(padding), dilations: attr.ints([1, 1, 1, 1, 1]),
                    data_format: attr.s('NDHWC') };
    const pad = padding.toLowerCase();
    const filterShape = [...fs, c, oc];
    const dy = randomTensor('float32', [n, ...out, oc]);
    addCase('Conv3DBackpropInputV2', { ...attrs, Tshape: attr.type('int32') },
            [int32s(shape), randomTensor('float32', filterShape), dy],
            (sizes, filter, dy) => runKernel('Conv3DBackpropInputV2', { dy, filter },
                                             { strides, pad, inputShape: shape }),
            { tol: accumulated(fs[0] * fs[1] * fs[2] * oc, 16), outDtypes: ['float32'] });
    addCase('Conv3DBackpropFilterV2', attrs,
            [randomTensor('float32', shape), int32s(filterShape), dy],
            (x, sizes, dy) => runKernel('Conv3DBackpropFilterV2', { x, dy },
                                        { strides, pad, filterShape }),
            { tol: accumulated(n * out[0] * out[1] * out[2], 16), outDtypes: ['float32'] });
  }
  // Distinct values, so that no window has two maxima: TensorFlow's MaxPool3DGrad gives the
  // gradient to every element within 1e-5 of the maximum, tfjs to one of them.
  const distinct = (shape) => {
    const n = numElements(shape);
    const values = [];
    for (let i = 0; i < n; ++i) values.push((i - n / 2) / 8);
    for (let i = n - 1; i > 0; --i) {
      const j = randInt(0, i);
      [values[i], values[j]] = [values[j], values[i]];
    }
    return tensor('float32', shape, values);
  };
  for (let k = 0; k < 24; ++k) {
    const shape = randomVolume(5);
    const ks = shape.slice(1, 4).map((d) => randInt(1, Math.min(3, d)));
    const strides = ks.map((w) => randInt(1, Math.min(2, w)));
    const padding = pick(['SAME', 'VALID']);
    const pad = padding.toLowerCase();
    const attrs = { T: attr.type('float32'), ksize: attr.ints([1, ...ks, 1]),
                    strides: attr.ints([1, ...strides, 1]), padding: attr.s(padding),
                    data_format: attr.s('NDHWC') };
    const window = ks[0] * ks[1] * ks[2];
    // -inf and NaN are left out of MaxPool3D: a window of only -inf that reaches into SAME
    // padding gives the padding value -FLT_MAX in TensorFlow (-inf in tfjs), and tfjs skips NaN.
    const x = randomTensor('float32', shape, { specials: k % 4 === 0 ? [Infinity] : false });
    addCase(k % 2 === 0 ? 'MaxPool3D' : 'AvgPool3D', attrs, [x],
            (t) => (k % 2 === 0 ? tf.maxPool3d : tf.avgPool3d)(t, ks, strides, pad),
            { tol: accumulated(window, 4) });
    const out = [0, 1, 2].map((i) => convOutSize(shape[i + 1], ks[i], strides[i], 1, padding));
    const dy = randomTensor('float32', [shape[0], ...out, shape[4]]);
    if (k % 2 === 0) {
      // tfjs's MaxPool3DGrad loses gradients where a stride is above 1 (a [1,2,1] window moved
      // by [1,2,1] over [1,5,2,3] gives all zeros) and shifts them with SAME padding: VALID with
      // unit strides only.
      if (strides.some((s) => s > 1) || padding === 'SAME') continue;
      const input = distinct(shape);
      const y = tf.tidy(() => {
        const t = tf.maxPool3d(toTf(input), ks, strides, pad);
        return tensor('float32', t.shape, Array.from(t.dataSync()));
      });
      addCase('MaxPool3DGrad', { ...attrs, TInput: attr.type('float32') }, [input, y, dy],
              (input, output, dy) => runKernel('MaxPool3DGrad', { dy, input, output },
                                               { filterSize: ks, strides, pad }),
              { tol: accumulated(window, 4) });
    } else if (padding === 'VALID') {
      // tfjs's AvgPool3DGrad divides by the whole window where SAME padding cuts it
      // (TensorFlow by the elements inside): VALID only.
      addCase('AvgPool3DGrad', attrs, [int32s(shape), dy],
              (sizes, dy) => runKernel('AvgPool3DGrad', { dy, input: tf.zeros(shape) },
                                       { filterSize: ks, strides, pad }),
              { tol: accumulated(window, 4), outDtypes: ['float32'] });
    }
  }
}

// SpaceToBatchND and BatchToSpaceND (TensorFlow's CPU kernels take real numbers only, so no
// bool) and DepthToSpace (NHWC only: tfjs's CPU kernel has no NCHW). Block sizes that do not
// divide the padded dimension, or the batch, are refused by both.
function addSpaceBatchDepthCases() {
  for (let k = 0; k < 16; ++k) {
    const dtype = pick(['float32', 'int32']);
    const m = randInt(1, 2);
    const block = [];
    const paddings = [];
    const shape = [randInt(0, 2)];
    const refuse = k % 8 === 7;
    for (let i = 0; i < m; ++i) {
      // The refused cases pad the first dimension to an odd size and cut it in blocks of 2.
      block.push(refuse && i === 0 ? 2 : randInt(1, 3));
      paddings.push([randInt(0, 2), randInt(0, 2)]);
      let size = randInt(0, 4);
      const padded = () => size + paddings[i][0] + paddings[i][1];
      while (refuse && i === 0 ? padded() % 2 === 0 : padded() % block[i] !== 0) ++size;
      shape.push(size);
    }
    for (let r = randInt(0, 1); r > 0; --r) shape.push(randInt(1, 3));
    addCase('SpaceToBatchND',
            { T: attr.type(dtype), Tblock_shape: attr.type('int32'),
              Tpaddings: attr.type('int32') },
            [randomTensor(dtype, shape), int32s(block), int32s(paddings.flat(), [m, 2])],
            (t) => tf.spaceToBatchND(t, block, paddings), { expectError: refuse });
  }
  for (let k = 0; k < 16; ++k) {
    const dtype = pick(['float32', 'int32']);
    const m = randInt(1, 2);
    const block = [];
    const crops = [];
    let product = 1;
    for (let i = 0; i < m; ++i) {
      block.push(randInt(1, 3));
      product *= block[i];
    }
    const refuse = k % 8 === 7 && product > 1;
    const shape = [randInt(0, 2) * product + (refuse ? 1 : 0)];
    for (let i = 0; i < m; ++i) {
      const size = randInt(1, 3);
      const total = size * block[i];
      const start = randInt(0, Math.min(2, total));
      crops.push([start, randInt(0, Math.min(2, total - start))]);
      shape.push(size);
    }
    for (let r = randInt(0, 1); r > 0; --r) shape.push(randInt(1, 3));
    addCase('BatchToSpaceND',
            { T: attr.type(dtype), Tblock_shape: attr.type('int32'), Tcrops: attr.type('int32') },
            [randomTensor(dtype, shape), int32s(block), int32s(crops.flat(), [m, 2])],
            (t) => tf.batchToSpaceND(t, block, crops), { expectError: refuse });
  }
  for (let k = 0; k < 12; ++k) {
    const dtype = 'float32';  // tfjs's depthToSpace takes float32 only
    const blockSize = randInt(2, 3);
    const refuse = k % 6 === 5;
    const depth = randInt(1, 2) * blockSize * blockSize + (refuse ? 1 : 0);
    const shape = [randInt(1, 2), randInt(1, 3), randInt(1, 3), depth];
    addCase('DepthToSpace',
            { T: attr.type(dtype), block_size: attr.i(blockSize), data_format: attr.s('NHWC') },
            [randomTensor(dtype, shape)], (t) => tf.depthToSpace(t, blockSize, 'NHWC'),
            { expectError: refuse });
  }
}

// ---- Main ----------------------------------------------------------------------------------

function main() {
  const output = process.argv[2] || path.join(__dirname, 'cases.json');
  addUnaryCases();
  addBinaryCases();
  addReductionCases();
  addMatMulCases();
  addConvCases();
  addGradientCases();
  addSoftmaxCases();
  addConcatPackSplitCases();
  addSliceCases();
  addShapeCases();
  addPadGatherCases();
  addFillCastCases();
  addImageCases();
  addConv3DCases();
  addSpaceBatchDepthCases();

  const ops = new Set(cases.map((c) => c.op));
  const header = {
    format: kFormatVersion,
    generator: 'tests/oracle/generate_cases.js',
    seed: kSeed,
    tfjs: { 'tfjs-core': tf.version_core,
            'tfjs-backend-cpu': require('@tensorflow/tfjs-backend-cpu/package.json').version },
    case_count: cases.length,
    op_count: ops.size,
    dropped,
  };
  const lines = cases.map((c) => JSON.stringify(c));
  const headerText = JSON.stringify(header, null, 1).slice(0, -2);
  const text = `${headerText},\n"cases": [\n${lines.join(',\n')}\n]}\n`;
  fs.writeFileSync(output, text);
  process.stderr.write(`wrote ${output}: ${cases.length} cases over ${ops.size} ops` +
                       ` (${dropped.length} dropped)\n`);
}

// tfjs advises installing its native backend when it finds Node.js; that is not wanted here.
// (It prints on the first op, so the console stays quiet throughout; the summary goes to stderr.)
console.log = () => {};
console.warn = () => {};
tf.setBackend('cpu').then(main);
