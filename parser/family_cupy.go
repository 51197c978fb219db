package parser

import (
	"strings"
	"sync"
)

// CuPy's memory pool (and Chainer, which runs on it): the pool could not
// get a block from the device. Both layouts print the request and what
// the pool already holds, in bytes.
type cupyPatterns struct {
	reCuPyAlloc *lazyRegexp
}

// cupyRes compiles the CuPy patterns on first use, once per process.
var cupyRes = sync.OnceValue(func() *cupyPatterns {
	return &cupyPatterns{
		// CuPy ≥ 7: "cupy.cuda.memory.OutOfMemoryError: Out of memory allocating
		// 25,600,000 bytes (allocated so far: 3,635,267,072 bytes)."; CuPy ≤ 6:
		// "cupy.cuda.memory.OutOfMemoryError: out of memory to allocate
		// 1073741824 bytes (total 12373894656 bytes)" (Chainer's trainer prints
		// the same after "Exception in main training loop: ")
		reCuPyAlloc: lazyRE(`(?i)out of memory (?:to allocate|allocating) (\d[\d,]*) bytes \((?:total|allocated so far:) (\d[\d,]*) bytes\)`),
	}
})

// cupyMatchers are tried before the XLA family, whose "Out of memory
// allocating" they share.
func cupyMatchers() []failureMatcher {
	return []failureMatcher{
		{
			name:    "cupy-pool",
			anchors: []string{"of memory to allocate", "of memory allocating"},
			locate:  cupyRes().reCuPyAlloc,
			kind:    KindCUDARuntime,
			fill: func(ev *Event, msg string) {
				ev.Framework, ev.Variant = "cupy", "cupy-memory-pool"
				ev.Device = &Device{Type: "cuda"}
				m := cupyRes().reCuPyAlloc.FindStringSubmatch(msg)
				requestOf(ev, strings.ReplaceAll(m[1], ",", "")+" bytes")
				ev.AllocatedBytes = sizeOf(strings.ReplaceAll(m[2], ",", "") + " bytes")
			},
		},
	}
}
