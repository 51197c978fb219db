package snapshot

import (
	"fmt"

	"github.com/oomdoc/oomdoc/parser"
)

// Event is the failure the snapshot records, as a parser event, so that a
// snapshot given alone is diagnosed by the same rules as a log. It is nil
// when the snapshot holds no `oom` entry (nor observer figures).
func (m *Measured) Event() *parser.Event {
	if m.OOM == nil {
		return nil
	}
	dev := m.Device
	req, reserved, allocated := m.OOM.RequestedBytes, m.ReservedBytes, m.AllocatedBytes
	unalloc := reserved - allocated
	e := &parser.Event{
		ID: "e1", Kind: parser.KindCUDA, Input: m.Input,
		Device:         &parser.Device{Type: "cuda", Index: &dev},
		RequestedBytes: &req, FreeBytes: m.OOM.DeviceFreeBytes, TotalBytes: m.TotalBytes,
		AllocatedBytes: &allocated, ReservedBytes: &reserved, ReservedUnallocatedBytes: &unalloc,
		Phase: m.Phase, Framework: "pytorch", Variant: "memory-snapshot",
		OtherProcesses: []parser.Process{}, Frames: []parser.Frame{},
	}
	if e.Phase == "" {
		e.Phase = parser.PhaseUnknown
	}
	free := "an unknown amount"
	if f := m.OOM.DeviceFreeBytes; f != nil {
		free = parser.FormatSize(*f)
	}
	e.Message = fmt.Sprintf("memory snapshot: the allocator could not allocate %s (%d bytes) with %s free on the device; %s reserved by PyTorch, %s allocated",
		parser.FormatSize(req), req, free, parser.FormatSize(reserved), parser.FormatSize(allocated))
	for i := len(m.OOMStack) - 1; i >= 0; i-- { // outermost first, as a traceback prints
		f := m.OOMStack[i]
		if isPython(f) {
			e.Frames = append(e.Frames, parser.Frame{File: f.File, Line: int(f.Line), Function: f.Function})
		}
	}
	return e
}
