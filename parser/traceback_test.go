package parser

import (
	"strings"
	"testing"
)

// TestFrameCodeEndsAtBlank: a frame's code is the line right under its
// File line; after a blank line an unindented line is a message, not code.
// TensorFlow 2's "Graph execution error:" prints the node's defining frames,
// a blank line, then "OOM when allocating tensor …", which was read as the
// last frame's code and lost.
func TestFrameCodeEndsAtBlank(t *testing.T) {
	log := "Detected at node model/conv2d_3/Conv2D defined at (most recent call last):\n" +
		"  File \"/home/carol/unet/train.py\", line 88, in <module>\n" +
		"\n" +
		"OOM when allocating tensor with shape[32,128,448,448] and type float on /job:localhost/replica:0/task:0/device:GPU:0 by allocator GPU_0_bfc\n"
	res, err := Parse(strings.NewReader(log), "x")
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Events) != 1 || res.Events[0].Kind != KindTF || res.Events[0].Line != 4 {
		t.Fatalf("events %+v, want one tf-oom at line 4", res.Events)
	}
	// A paste that lost the code's indentation keeps its code.
	res, err = Parse(strings.NewReader("Traceback (most recent call last):\n  File \"train.py\", line 12, in <module>\nloss.backward()\nRuntimeError: CUDA out of memory. Tried to allocate 20.00 MiB (GPU 0; 4.00 GiB total capacity; 3.10 GiB already allocated; 1.50 MiB free; 3.20 GiB reserved in total by PyTorch)\n"), "x")
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Events) != 1 || len(res.Events[0].Frames) != 1 || res.Events[0].Frames[0].Code != "loss.backward()" {
		t.Fatalf("events %+v, want one with the frame's code loss.backward()", res.Events)
	}
	// A double-spaced paste (a blank line between a frame and its code, as
	// Windows consoles copy) keeps every frame and its code.
	res, err = Parse(strings.NewReader("Traceback (most recent call last):\n\n  File \"train.py\", line 40, in <module>\n\n    main()\n\n  File \"train.py\", line 31, in main\n\n    loss.backward()\n\nRuntimeError: CUDA out of memory. Tried to allocate 20.00 MiB (GPU 0; 4.00 GiB total capacity; 3.10 GiB already allocated; 1.50 MiB free; 3.20 GiB reserved in total by PyTorch)\n"), "x")
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Events) != 1 || len(res.Events[0].Frames) != 2 || res.Events[0].Frames[1].Code != "loss.backward()" {
		t.Fatalf("double-spaced: events %+v, want one with two frames, the last loss.backward()", res.Events)
	}
}
