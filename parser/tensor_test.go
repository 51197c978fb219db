package parser

import "testing"

// TestDtypeWidth: element sizes of the dtype names TensorFlow, XLA and
// NumPy print, NumPy's array-protocol strings included.
func TestDtypeWidth(t *testing.T) {
	for _, tc := range []struct {
		dtype string
		want  int64
	}{
		{"float", 4}, {"double", 8}, {"bfloat16", 2}, {"f32", 4}, {"pred", 1}, {"float64", 8},
		{"<U50", 200}, // 50 UCS-4 characters
		{"|S10", 10},
		{"<f8", 8},
		{"<i4", 4},
		{">c16", 16},
		{"object", 0},
		{"<U0", 0},
		{"<", 0},
		{"<U99999999999", 0},
	} {
		if got := dtypeWidth(tc.dtype); got != tc.want {
			t.Errorf("dtypeWidth(%q) = %d, want %d", tc.dtype, got, tc.want)
		}
	}
}

// TestNumpyArrayBytes: NumPy's refusal gives the array's exact size from
// its shape and dtype, beside the rounded size it prints.
func TestNumpyArrayBytes(t *testing.T) {
	for _, tc := range []struct {
		line string
		want int64
	}{
		{"numpy.core._exceptions.MemoryError: Unable to allocate 10.9GiB for an array with shape (14661920, 4) and data type <U50", 11729536000},
		{"Unable to allocate 139. MiB for an array with shape (9131294, 2) and data type float64", 146100704},
	} {
		ev := &Event{}
		fillCPU(ev, tc.line)
		if ev.TensorBytes == nil || *ev.TensorBytes != tc.want {
			t.Errorf("%.50q: tensor bytes %v, want %d", tc.line, deref(ev.TensorBytes), tc.want)
		}
	}
}
