package parser

import (
	"strings"
	"testing"
)

// TestBFCStats: the BFC allocator's "Stats:" dump gives a graph runtime's
// failure its limit and the bytes in use, whether the dump comes before
// the op's OOM line (TensorFlow 1.x) or after the allocator's warning.
func TestBFCStats(t *testing.T) {
	dump := "2018-06-08 17:26:00.908082: I tensorflow/core/common_runtime/bfc_allocator.cc:680] Stats: \nLimit:                 10625279591\nInUse:                  7350513920\nMaxInUse:               7464792320\n"
	oom := "2018-06-08 17:26:00.908157: W tensorflow/core/framework/op_kernel.cc:1198] Resource exhausted: OOM when allocating tensor with shape[5000,64,3,3] and type float on /job:localhost/replica:0/task:0/device:GPU:0 by allocator GPU_0_bfc\n"
	for name, log := range map[string]string{"dump before": dump + oom, "none": oom} {
		res, err := Parse(strings.NewReader(log), "x")
		if err != nil || len(res.Events) != 1 {
			t.Fatalf("%s: %d events, err %v", name, len(res.Events), err)
		}
		ev := res.Events[0]
		switch name {
		case "dump before":
			if ev.TotalBytes == nil || *ev.TotalBytes != 10625279591 || ev.AllocatedBytes == nil || *ev.AllocatedBytes != 7350513920 {
				t.Errorf("%s: total %v allocated %v, want 10625279591 and 7350513920", name, ev.TotalBytes, ev.AllocatedBytes)
			}
		case "none":
			if ev.TotalBytes != nil || ev.AllocatedBytes != nil {
				t.Errorf("%s: total %v allocated %v, want both unknown", name, ev.TotalBytes, ev.AllocatedBytes)
			}
		}
	}
	// Two allocators' dumps: the one after the failing allocator's own line
	// is its dump, not the end of the other device's just above.
	other := "2024-11-20 14:02:51.700000: I tensorflow/tsl/framework/bfc_allocator.cc:1121] Stats: \nLimit:                     23622320128\nInUse:                     22000000000\n"
	own := "2024-11-20 14:02:51.771203: W tensorflow/tsl/framework/bfc_allocator.cc:485] Allocator (GPU_0_bfc) ran out of memory trying to allocate 3.06GiB (rounded to 3288334336)requested by op model/conv2d_3/Conv2D\n2024-11-20 14:02:51.771845: I tensorflow/tsl/framework/bfc_allocator.cc:1121] Stats: \nLimit:                     10740170752\nInUse:                      9867001856\nMaxInUse:                   9867001856\n"
	res, err := Parse(strings.NewReader(other+own), "x")
	if err != nil || len(res.Events) != 1 {
		t.Fatalf("two dumps: %d events, err %v", len(res.Events), err)
	}
	if ev := res.Events[0]; ev.TotalBytes == nil || *ev.TotalBytes != 10740170752 || ev.AllocatedBytes == nil || *ev.AllocatedBytes != 9867001856 {
		t.Errorf("two dumps: total %v allocated %v, want its own dump's 10740170752 and 9867001856", ev.TotalBytes, ev.AllocatedBytes)
	}
}

// TestXLADeviceFromBFCLine: an XLA failure whose message names no device
// runs on the pool the BFC allocator's line just above names.
func TestXLADeviceFromBFCLine(t *testing.T) {
	log := "2024-06-01 10:00:00.000000: W external/xla/xla/tsl/framework/bfc_allocator.cc:291] Allocator (GPU_1_bfc) ran out of memory trying to allocate 12.00GiB with freed_by_count=0.\n" +
		"2024-06-01 10:00:01.000000: E external/xla/xla/pjrt/pjrt_stream_executor_client.cc:3067] Execution of replica 0 failed: RESOURCE_EXHAUSTED: Out of memory while trying to allocate 12884901888 bytes.\n"
	res, err := Parse(strings.NewReader(log), "x")
	if err != nil || len(res.Events) != 1 {
		t.Fatalf("err %v, %d events", err, len(res.Events))
	}
	d := res.Events[0].Device
	if res.Events[0].Kind != KindXLA || d == nil || d.Type != "cuda" || d.Index == nil || *d.Index != 1 {
		t.Errorf("kind %s, device %+v, want an XLA failure on cuda:1", res.Events[0].Kind, d)
	}
}
