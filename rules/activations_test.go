package rules

import (
	"slices"
	"testing"
)

// TestTrainingGraphStep: a TensorFlow or XLA failure inside a training
// loop the log shows is evidence of training activations; the same
// failure in a prediction loop is not.
func TestTrainingGraphStep(t *testing.T) {
	const oom = "jaxlib.xla_extension.XlaRuntimeError: RESOURCE_EXHAUSTED: Out of memory while trying to allocate 12.50GiB.\n"
	for _, tc := range []struct {
		name, log string
		want      bool
	}{
		{"a train step", "Traceback (most recent call last):\n  File \"/home/dan/gpt/train.py\", line 211, in <module>\n    state, metrics = train_step(state, batch, rng)\n" + oom, true},
		{"a predict loop", "Traceback (most recent call last):\n  File \"/home/dan/run.py\", line 30, in <module>\n    out = model.predict(batch)\n" + oom, false},
	} {
		fd := checkActivations(factsOf(t, tc.log))
		if got := fd != nil && slices.Contains(fd.Signals, actTrainGraph); got != tc.want {
			t.Errorf("%s: training-graph-step %v, want %v (finding %+v)", tc.name, got, tc.want, fd)
		}
	}
}
