package rules

import "testing"

// TestScoreShaped: which 4-D shapes read as a layer's attention scores.
func TestScoreShaped(t *testing.T) {
	for _, tc := range []struct {
		name  string
		shape []int64
		bytes int64
		named bool
		want  bool
	}{
		{"BERT-sized scores", []int64{32, 12, 512, 512}, 4, false, true},
		{"scores of unknown dtype, read as float32", []int64{8, 16, 1024, 1024}, 0, false, true},
		{"a 3×3 convolution kernel", []int64{3, 3, 1024, 1024}, 4, false, false},
		{"a 1×1 convolution kernel", []int64{1, 1, 4096, 4096}, 4, false, false},
		{"one head of one sequence, named attention", []int64{1, 1, 16384, 16384}, 4, true, true},
		{"too small to matter", []int64{3, 3, 256, 256}, 4, true, false},
		{"last two dimensions differ", []int64{8, 12, 512, 64}, 4, false, false},
		{"more heads than any model", []int64{2, 512, 1024, 1024}, 2, false, false},
		{"a short sequence", []int64{64, 12, 32, 32}, 4, false, false},
		{"three dimensions", []int64{12, 512, 512}, 4, false, false},
	} {
		if got := scoreShaped(tc.shape, tc.bytes, tc.named); got != tc.want {
			t.Errorf("%s: scoreShaped(%v, %d, %v) = %v, want %v", tc.name, tc.shape, tc.bytes, tc.named, got, tc.want)
		}
	}
}

// TestAttentionNamed: a message names attention by a node, op or layer.
func TestAttentionNamed(t *testing.T) {
	for _, tc := range []struct {
		msg  string
		want bool
	}{
		{"OOM when allocating tensor with shape[1,1,16384,16384] [[node model/multi_head_attention/softmax/Softmax]]", true},
		{"OOM when allocating tensor with shape[2,2,8192,8192] [Op:Einsum]", true},
		{"OOM when allocating tensor with shape[3,3,256,256] and type float [Op:RandomStandardNormal]", false},
		{"OOM when allocating tensor with shape[1,1,4096,4096] [[node conv2d/kernel/Initializer]]", false},
	} {
		if got := attentionNamed(tc.msg); got != tc.want {
			t.Errorf("attentionNamed(%q) = %v, want %v", tc.msg, got, tc.want)
		}
	}
}
