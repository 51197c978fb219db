package rules

import "github.com/oomdoc/oomdoc/parser"

// checkpointToGPU: torch.load restores a checkpoint (often with optimizer
// state) straight onto the device it was saved from.
func checkpointToGPU() Culprit {
	return Culprit{
		ID:        "checkpoint-to-gpu",
		Title:     "torch.load restoring a checkpoint straight onto the GPU",
		Doc:       "Without map_location, torch.load restores every tensor to the device it was saved from. A training checkpoint carries the weights and the optimizer state (Adam: two more copies), so it can need several times the model's size on the GPU — and on GPU 0 in every process. Loading to the CPU first (map_location='cpu') and moving only the weights fixes it.",
		Recognise: "Frames in torch.load / serialization.py / _rebuild_tensor, map_location absent or 'cuda'; checkpoints that carry optimizer state.",
		Excludes:  []string{parser.KindHostKill, parser.KindCPU},
		Signals: []Signal{
			{Name: ckptFrames, Strength: EvidenceSignal, Start: 2.0, Doc: "frames in torch.load's deserialisation onto the device"},
		},
		WouldDecide: "the map_location of the failing torch.load",
		Capture:     "the torch.load line of the traceback",
		Assess:      checkCheckpointToGPU,
	}
}

// Signals of checkpoint-to-gpu.
const ckptFrames = "checkpoint-to-gpu/torch-load-frames"

func checkCheckpointToGPU(f *Facts) *Finding {
	ev := f.Ev
	e, ok := f.Find(words("torch.load(", "serialization.py", "_rebuild_tensor", "restore_location", "_cuda_deserialize", "default_restore_location"))
	if !ok {
		return nil
	}
	fd := &Finding{Culprit: "checkpoint-to-gpu", Event: ev.ID, Quantities: Quantities{RequestedBytes: f.Requested}}
	fd.fire(ckptFrames)
	fd.Evidence = append(fd.Evidence, e, f.EventLine())
	fd.Title = "torch.load puts the whole checkpoint on the GPU"
	fd.Explanation = "Without map_location, torch.load restores every tensor to the device it was saved from. A training checkpoint carries the weights and the optimizer state (Adam: 2 more copies), so it can need several times the model's size on the GPU — and on GPU 0 in every process."
	return fd
}
