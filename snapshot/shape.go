package snapshot

import "fmt"

// A ShapeError is a pickle that decoded but is not a memory snapshot.
type ShapeError struct {
	Where string // "segments[3].blocks[7]"
	Msg   string
}

// Error says where the shape is wrong.
func (e *ShapeError) Error() string {
	if e.Where == "" {
		return "not a PyTorch memory snapshot: " + e.Msg
	}
	return fmt.Sprintf("not a PyTorch memory snapshot: %s: %s", e.Where, e.Msg)
}

// segment and block are the parts of torch.cuda.memory._snapshot()'s
// Segment and Block types the derivation uses.
type segment struct {
	device  int64
	address int64
	total   int64
	blocks  []block
}

type block struct {
	size   int64
	state  string
	frames *stack
}

// traceEntry is a device trace's TraceEntry; only `oom` entries are kept.
type traceEntry struct {
	size       int64
	deviceFree *int64
	frames     *stack
}

// stack is one decoded frames list with its classification, shared by
// every block and entry whose pickle fetched the same list from the memo.
type stack struct {
	frames []Frame
	class  class
}

// shaper converts decoded values, converting each frames list once. A
// list of blocks or trace entries is walked once: a pickle that fetches
// the same one again (a real snapshot never does) is refused, so the work
// stays linear in the pickle's size.
type shaper struct {
	stacks map[*List]*stack
	walked map[*List]bool
	empty  *stack
}

func newShaper() *shaper {
	return &shaper{stacks: map[*List]*stack{}, walked: map[*List]bool{}, empty: &stack{class: classify(nil)}}
}

// walk marks a list walked; false when it was already.
func (s *shaper) walk(l *List, where string) error {
	if s.walked[l] {
		return &ShapeError{Where: where, Msg: "is the same list as one read before"}
	}
	s.walked[l] = true
	return nil
}

// snapshotOf returns the segments and each device's OOM entries. The root
// is the Snapshot dict, or the bare segment list of torch.cuda.memory_snapshot().
func (s *shaper) snapshotOf(root any) ([]segment, map[int][]traceEntry, error) {
	var segs *List
	traces := map[int][]traceEntry{}
	switch r := root.(type) {
	case *List:
		segs = r
	case *Dict:
		v, ok := r.Get("segments")
		if !ok {
			return nil, nil, &ShapeError{Msg: "the pickle is a dict without a \"segments\" list"}
		}
		if segs, ok = v.(*List); !ok {
			return nil, nil, &ShapeError{Where: "segments", Msg: "is a " + typeName(v) + ", not a list"}
		}
		if dt, ok := r.Get("device_traces"); ok {
			if err := s.traces(dt, traces); err != nil {
				return nil, nil, err
			}
		}
	default:
		return nil, nil, &ShapeError{Msg: "the pickle holds a " + typeName(root) + ", not a snapshot dict"}
	}
	if err := s.walk(segs, "segments"); err != nil {
		return nil, nil, err
	}
	out := make([]segment, 0, len(segs.Items))
	for i, v := range segs.Items {
		seg, err := s.segment(v, fmt.Sprintf("segments[%d]", i))
		if err != nil {
			return nil, nil, err
		}
		out = append(out, seg)
	}
	return out, traces, nil
}

func (s *shaper) segment(v any, where string) (segment, error) {
	d, ok := v.(*Dict)
	if !ok {
		return segment{}, &ShapeError{Where: where, Msg: "is a " + typeName(v) + ", not a dict"}
	}
	var seg segment
	var err error
	if seg.total, err = intField(d, "total_size", where, true); err != nil {
		return seg, err
	}
	if seg.device, err = intField(d, "device", where, false); err != nil {
		return seg, err
	}
	if seg.address, err = intField(d, "address", where, false); err != nil {
		return seg, err
	}
	bv, ok := d.Get("blocks")
	bl, isList := bv.(*List)
	if !ok || !isList {
		return seg, &ShapeError{Where: where, Msg: "has no \"blocks\" list"}
	}
	if err := s.walk(bl, where+".blocks"); err != nil {
		return seg, err
	}
	seg.blocks = make([]block, 0, len(bl.Items))
	for j, v := range bl.Items {
		b, err := s.block(v, fmt.Sprintf("%s.blocks[%d]", where, j))
		if err != nil {
			return seg, err
		}
		seg.blocks = append(seg.blocks, b)
	}
	return seg, nil
}

func (s *shaper) block(v any, where string) (block, error) {
	d, ok := v.(*Dict)
	if !ok {
		return block{}, &ShapeError{Where: where, Msg: "is a " + typeName(v) + ", not a dict"}
	}
	var b block
	var err error
	if b.size, err = intField(d, "size", where, true); err != nil {
		return b, err
	}
	st, _ := d.Get("state")
	if b.state, ok = st.(string); !ok {
		return b, &ShapeError{Where: where, Msg: "has no \"state\" string"}
	}
	fv, ok := d.Get("frames")
	if !ok {
		// the format before PyTorch 2.1: frames live in the block's history
		if h, isList := mustGet(d, "history").(*List); isList && len(h.Items) > 0 {
			if hd, isDict := h.Items[0].(*Dict); isDict {
				fv = mustGet(hd, "frames")
			}
		}
	}
	b.frames, err = s.stackOf(fv, where+".frames")
	return b, err
}

// traces keeps each device's `oom` entries.
func (s *shaper) traces(v any, out map[int][]traceEntry) error {
	devs, ok := v.(*List)
	if !ok {
		return &ShapeError{Where: "device_traces", Msg: "is a " + typeName(v) + ", not a list"}
	}
	if err := s.walk(devs, "device_traces"); err != nil {
		return err
	}
	for i, dv := range devs.Items {
		entries, ok := dv.(*List)
		if !ok {
			return &ShapeError{Where: fmt.Sprintf("device_traces[%d]", i), Msg: "is a " + typeName(dv) + ", not a list"}
		}
		if err := s.walk(entries, fmt.Sprintf("device_traces[%d]", i)); err != nil {
			return err
		}
		for j, ev := range entries.Items {
			e, ok := ev.(*Dict)
			if !ok || !isOOM(e) {
				continue
			}
			where := fmt.Sprintf("device_traces[%d][%d]", i, j)
			size, err := intField(e, "size", where, true)
			if err != nil {
				return err
			}
			te := traceEntry{size: size}
			if f, ok := e.Get("device_free"); ok {
				n, isInt := asInt64(f)
				if !isInt {
					return &ShapeError{Where: where, Msg: "\"device_free\" is a " + typeName(f) + ", not an int"}
				}
				te.deviceFree = &n
			}
			if te.frames, err = s.stackOf(mustGet(e, "frames"), where+".frames"); err != nil {
				return err
			}
			out[i] = append(out[i], te)
		}
	}
	return nil
}

// stackOf converts a frames list (nil or absent: no stack recorded).
func (s *shaper) stackOf(v any, where string) (*stack, error) {
	if v == nil {
		return s.empty, nil
	}
	l, ok := v.(*List)
	if !ok {
		return nil, &ShapeError{Where: where, Msg: "is a " + typeName(v) + ", not a list"}
	}
	if st, ok := s.stacks[l]; ok {
		return st, nil
	}
	frames := make([]Frame, 0, len(l.Items))
	for k, fv := range l.Items {
		fd, ok := fv.(*Dict)
		if !ok {
			return nil, &ShapeError{Where: fmt.Sprintf("%s[%d]", where, k), Msg: "is a " + typeName(fv) + ", not a frame dict"}
		}
		file, _ := mustGet(fd, "filename").(string)
		name, _ := mustGet(fd, "name").(string)
		line, _ := asInt64(mustGet(fd, "line"))
		frames = append(frames, Frame{File: file, Line: line, Function: name})
	}
	st := &stack{frames: frames, class: classify(frames)}
	s.stacks[l] = st
	return st, nil
}

// isOOM reports a trace entry whose action is "oom".
func isOOM(d *Dict) bool {
	a, _ := mustGet(d, "action").(string)
	return a == "oom"
}

// dropTrace is the decoder's Drop hook: trace entries other than `oom`
// are not needed, and with their stacks they are most of a large snapshot.
func dropTrace(d *Dict) bool {
	a, ok := mustGet(d, "action").(string)
	return ok && a != "oom" && a != ""
}

// discardTraceFrames is the decoder's Discard hook: the stack of a trace
// entry other than `oom` is not needed. PyTorch pickles the snapshot dict
// with "segments" before "device_traces", so while an entry is being
// built the stack holds, from the bottom: the root dict, "segments" and
// its list, "device_traces" and its list, a device's list, the entry dict,
// then the entry's keys and values so far (its "action" first). A stack
// list shared with a block was first pickled inside "segments" and is
// fetched from the memo, never made here.
func discardTraceFrames(stack []any) bool {
	seg, tr := -1, -1
	for i := 0; i+1 < len(stack); i++ {
		if _, isList := stack[i+1].(*List); isList {
			switch stack[i] {
			case "segments":
				seg = i
			case "device_traces":
				tr = i
			}
		}
	}
	if seg < 0 || tr < seg {
		return false
	}
	for j := len(stack) - 1; j > tr+1; j-- {
		if _, isDict := stack[j].(*Dict); !isDict {
			continue
		}
		kv := stack[j+1:]
		for k := 0; k+1 < len(kv); k += 2 {
			if kv[k] == "action" {
				return kv[k+1] != "oom"
			}
		}
		return false // an entry whose action is not known yet: keep
	}
	return false
}

func mustGet(d *Dict, key string) any {
	v, _ := d.Get(key)
	return v
}

// intField reads an integer field; a missing optional one is 0.
func intField(d *Dict, key, where string, required bool) (int64, error) {
	v, ok := d.Get(key)
	if !ok {
		if required {
			return 0, &ShapeError{Where: where, Msg: fmt.Sprintf("has no %q", key)}
		}
		return 0, nil
	}
	n, ok := asInt64(v)
	if !ok {
		return 0, &ShapeError{Where: where, Msg: fmt.Sprintf("%q is a %s, not an int", key, typeName(v))}
	}
	if required && n < 0 {
		return 0, &ShapeError{Where: where, Msg: fmt.Sprintf("%q is negative (%d)", key, n)}
	}
	return n, nil
}
