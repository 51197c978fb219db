package snapshot

import (
	"fmt"
	"io"
)

// Observed is what the out-of-memory observer was called with, as the
// capture hook records it beside the snapshot. PyTorch's allocator calls
// the observer with (device, alloc_size, device_total — or the
// per-process cap when set_per_process_memory_fraction set one —,
// device_free); alloc_size is the segment it tried to reserve, the figure
// the error message prints.
type Observed struct {
	Device     int   `json:"device"`
	AllocBytes int64 `json:"alloc"`
	TotalBytes int64 `json:"device_total"`
	FreeBytes  int64 `json:"device_free"`
}

// ReadOptions tune Read.
type ReadOptions struct {
	Limits   Limits
	Observed *Observed // figures from the capture hook, nil when none
}

// Read decodes the snapshot pickle in r (named name in the report) and
// derives what it measures. When r can seek, the pickle is read twice (see
// scanRefs) so that memory stays near the size of the segments and the
// frames they share rather than of the whole trace.
func Read(r io.Reader, name string, opt ReadOptions) (*Measured, error) {
	if opt.Limits == (Limits{}) {
		opt.Limits = DefaultLimits()
	}
	dopt := Options{Limits: opt.Limits, Size: -1}
	if rs, ok := r.(io.ReadSeeker); ok {
		if start, err := rs.Seek(0, io.SeekCurrent); err == nil { // else a pipe: read once
			size, err := rs.Seek(0, io.SeekEnd)
			if err == nil {
				_, err = rs.Seek(start, io.SeekStart)
			}
			if err == nil {
				dopt.Size = size - start
				if dopt.Refs, err = scanRefs(rs, dopt.Size, opt.Limits); err != nil {
					return nil, err
				}
				_, err = rs.Seek(start, io.SeekStart)
				dopt.Drop, dopt.Discard = dropTrace, discardTraceFrames
			}
			if err != nil {
				return nil, fmt.Errorf("read snapshot: %w", err)
			}
		}
	}
	root, err := Decode(r, dopt)
	if err != nil {
		return nil, err
	}
	s := newShaper()
	segs, traces, err := s.snapshotOf(root)
	if err != nil {
		return nil, err
	}
	return derive(name, segs, traces, opt.Observed), nil
}
