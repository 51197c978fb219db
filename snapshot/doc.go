// Package snapshot reads a PyTorch CUDA memory snapshot — the pickle that
// torch.cuda.memory._dump_snapshot writes — and derives what held the
// device's memory when it ran out: bytes active, reserved and inactive,
// the largest free block, the failed request, and the holders (active
// bytes grouped by the allocation site, each classified as weights,
// optimizer state, KV cache, activations, gradients or other).
//
// The pickle is decoded by a small stack machine of its own (pickle.go)
// that understands only plain data — dicts, lists, tuples, strings, bytes,
// numbers, booleans and None — and refuses any opcode that would name or
// call a Python object, so nothing in a snapshot is ever executed. The
// decoder never recurses, reads its input once (twice when it can seek, to
// learn which memoised objects are referenced again and keep only those),
// and stops with a FormatError at its Limits: input bytes, decoded size
// and mark nesting.
package snapshot
