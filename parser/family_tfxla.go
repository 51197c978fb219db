package parser

// TensorFlow and JAX/XLA families.

import (
	"strconv"
	"strings"
)

var (
	reXLATPU = lazyRE(`Used ` + size + ` of ` + size + ` hbm`)
	// "RESOURCE_EXHAUSTED: Error allocating device buffer: Attempting to
	// allocate 15.65G. That was not possible. There are 11.08G free.;
	// (0x0x0_HBM0)" (the TPU runtime, jaxlib 0.4)
	reXLADeviceBuffer = lazyRE(`Attempting to allocate ` + size + `\. That was not possible\. There are ` + size + ` free`)
	reTFShape         = lazyRE(`OOM when allocating tensor with shape\s?\[([\d, ]*)\](?: and type (\w+))?(?: on (\S+))?(?: by allocator (\w+))?`)
	reTFBFC           = lazyRE(`Allocator \((\w+)\) ran out of memory trying to allocate ` + size)
	reTFOld           = lazyRE(`Ran out of memory trying to allocate ` + size)
	reTFDevice        = lazyRE(`(?i)(?:device:|/)(GPU|CPU|TPU):(\d+)|\b(GPU|CPU)_(\d+)_bfc`)
)

func fillTF(ev *Event, msg string) {
	ev.Framework = "tensorflow"
	if m := reTFShape.FindStringSubmatch(msg); m != nil {
		for _, d := range strings.Split(m[1], ",") {
			if n, err := strconv.ParseInt(strings.TrimSpace(d), 10, 64); err == nil {
				ev.TensorShape = append(ev.TensorShape, n)
			}
		}
		ev.TensorDType = m[2]
		ev.TensorBytes = tensorBytes(ev.TensorShape, m[2])
	}
	if m := reTFBFC.FindStringSubmatch(msg); m != nil {
		requestOf(ev, m[2])
	} else if m := reTFOld.FindStringSubmatch(msg); m != nil {
		requestOf(ev, m[1])
	}
	ev.Device = tfDevice(msg)
}

// bfcDevice is the device an XLA failure ran on when its own message names
// none: the BFC allocator's line just above names its pool ("Allocator
// (GPU_0_bfc) ran out of memory trying to allocate 12.00GiB").
func bfcDevice(lines []Span) *Device {
	for k := len(lines) - 1; k >= 0 && k >= len(lines)-4; k-- {
		if strings.Contains(lines[k].Text, "_bfc") {
			if d := tfDevice(lines[k].Text); d != nil {
				return d
			}
		}
	}
	return nil
}

// tfDevice reads "/device:GPU:2" or "GPU_2_bfc" from a TensorFlow message.
func tfDevice(msg string) *Device {
	m := reTFDevice.FindStringSubmatch(msg)
	if m == nil {
		return nil
	}
	kind, idx := m[1], m[2]
	if kind == "" {
		kind, idx = m[3], m[4]
	}
	d := &Device{Type: "cuda", Index: intp(idx)}
	switch strings.ToUpper(kind) {
	case "CPU":
		d.Type, d.Index = "cpu", nil // the host, not a numbered accelerator
	case "TPU":
		d.Type = "tpu"
	}
	return d
}

func fillXLA(ev *Event, msg string) {
	if ev.Framework == "" {
		// XLA's status, most often JAX's; a logger's source path
		// ("E tensorflow/stream_executor/rocm/rocm_driver.cc:601]") has
		// named TensorFlow already.
		ev.Framework = "jax"
	}
	if strings.HasPrefix(msg, "OP_REQUIRES failed") {
		// TensorFlow's op kernels print the same status ("W
		// tensorflow/core/framework/op_kernel.cc:1827] OP_REQUIRES failed at
		// mkl_matmul_op.cc:123 : RESOURCE_EXHAUSTED: failed to allocate
		// memory"): a TensorFlow failure, not XLA's
		ev.Framework, ev.Kind = "tensorflow", KindTF
	}
	switch {
	case reXLARequest.MatchString(msg):
		m := reXLARequest.FindStringSubmatch(msg)
		requestOf(ev, m[1])
		ev.Device = &Device{Index: intp(m[3])}
	case reXLAFromDevice.MatchString(msg):
		m := reXLAFromDevice.FindStringSubmatch(msg)
		// "failed to allocate 17.79G (19104890880 bytes)": the exact count
		// over the rounded one
		requestOf(ev, m[2]+" bytes")
		ev.Device = &Device{Type: "cuda"}
		// StreamExecutor prints this line for TensorFlow and JAX alike.
		ev.Variant = "stream-executor"
		if strings.Contains(msg, "tensorflow") {
			ev.Framework = "tensorflow"
		}
		if strings.Contains(msg, "HIP_ERROR") || strings.Contains(msg, "hipError") {
			ev.Device.Type = "rocm" // "from device: hipError_t(1002)" in TensorFlow's ROCm port
		}
	case reXLADeviceBuffer.MatchString(msg):
		m := reXLADeviceBuffer.FindStringSubmatch(msg)
		ev.RequestedBytes, ev.FreeBytes = sizeOf(m[1]), sizeOf(m[2])
		if strings.Contains(msg, "_HBM") {
			ev.Device = &Device{Type: "tpu"} // a TPU core's high-bandwidth memory
		}
	case reXLAReserve.MatchString(msg):
		m := reXLAReserve.FindStringSubmatch(msg)
		requestOf(ev, m[1])
		ev.FreeBytes = sizeOf(m[2])
		ev.Device = &Device{Type: "tpu"} // the TPU runtime's program reservation
	case reXLATPU.MatchString(msg):
		// A compile-time verdict on the whole program, not one allocation.
		m := reXLATPU.FindStringSubmatch(msg)
		ev.RequiredBytes = sizeOf(m[1])
		ev.TotalBytes = sizeOf(m[2])
		ev.Device = &Device{Type: "tpu"}
	default:
		if m := reXLABytes.FindStringSubmatch(msg); m != nil {
			requestOf(ev, m[1])
		}
	}
	if strings.Contains(msg, "XLA:TPU") {
		ev.Device = &Device{Type: "tpu"}
	}
}
