package rules

import "github.com/oomdoc/oomdoc/parser"

// checkpointToGPU: torch.load restores a checkpoint (often with optimizer
// state) straight onto the device it was saved from.
func checkpointToGPU() Rule {
	return Rule{
		ID:        "checkpoint-to-gpu",
		Title:     "torch.load restoring a checkpoint straight onto the GPU",
		Recognise: "Frames in torch.load / serialization.py / _rebuild_tensor, map_location absent or 'cuda'; checkpoints that carry optimizer state.",
		Check:     checkCheckpointToGPU,
	}
}

func checkCheckpointToGPU(f *Facts) *Finding {
	ev := f.Ev
	if ev.Kind == parser.KindHostKill || ev.Kind == parser.KindCPU {
		return nil
	}
	e, ok := f.Find(words("torch.load(", "serialization.py", "_rebuild_tensor", "restore_location", "_cuda_deserialize", "default_restore_location"))
	if !ok {
		return nil
	}
	fd := &Finding{Culprit: "checkpoint-to-gpu", Event: ev.ID, Confidence: 0.75, Quantities: Quantities{RequestedBytes: f.Requested}}
	fd.Evidence = append(fd.Evidence, e, f.EventLine())
	fd.Title = "torch.load puts the whole checkpoint on the GPU"
	fd.Explanation = "Without map_location, torch.load restores every tensor to the device it was saved from. A training checkpoint carries the weights and the optimizer state (Adam: 2 more copies), so it can need several times the model's size on the GPU — and on GPU 0 in every process."
	return fd
}
