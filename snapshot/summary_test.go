package snapshot

import "testing"

func TestSummary(t *testing.T) {
	m := &Measured{
		Holders: []Holder{
			{Bytes: 50, Blocks: 2, Kind: KindWeights, Because: "from_pretrained"},
			{Bytes: 30, Blocks: 1, Kind: KindActivation},
			{Bytes: 20, Blocks: 5, Kind: KindWeights},
			{Bytes: 10, Blocks: 1, Kind: KindOther},
		},
		InactiveBytes: 100, LargestFreeBlockBytes: 18,
	}
	got := m.ByKind()
	if len(got) != 3 || got[0].Kind != KindWeights || got[0].Bytes != 70 || got[0].Blocks != 7 || got[0].Sites != 2 ||
		got[0].Top.Because != "from_pretrained" || got[1].Kind != KindActivation || got[2].Kind != KindOther {
		t.Errorf("ByKind: %+v", got)
	}
	if m.BytesOf(KindWeights) != 70 || m.BytesOf(KindKVCache) != 0 {
		t.Errorf("BytesOf: %d, %d", m.BytesOf(KindWeights), m.BytesOf(KindKVCache))
	}
	for _, tc := range []struct {
		oom  *OOM
		want bool
	}{
		{nil, false},
		{&OOM{RequestedBytes: 64}, true},   // 100 free in pieces of at most 18
		{&OOM{RequestedBytes: 18}, false},  // the largest block holds it
		{&OOM{RequestedBytes: 200}, false}, // not enough free at all
	} {
		m.OOM = tc.oom
		if got := m.Fragmented(); got != tc.want {
			t.Errorf("Fragmented with %+v: got %v", tc.oom, got)
		}
	}
}
