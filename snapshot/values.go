package snapshot

import "math/big"

// The values a decoded pickle holds are nil (None), bool, int64, *big.Int
// (an integer beyond int64), float64, string, Bytes, Tuple, *List and
// *Dict. Sets and frozensets decode as *List.

// Bytes is a Python bytes or bytearray value.
type Bytes []byte

// Tuple is a Python tuple.
type Tuple []any

// List is a Python list (or set); a pointer, because a pickle may append to
// a list after it was stored and fetched again.
type List struct {
	Items   []any
	discard bool // the reader does not need the items: appends are dropped
}

// Pair is one key and value of a Dict.
type Pair struct {
	Key, Value any
}

// Dict is a Python dict, its pairs in insertion order. Snapshot dicts are
// small (a block has six keys), so lookups scan.
type Dict struct {
	Items []Pair
	index map[any]int // position of each comparable key, once the dict is large
	memo  int64       // memo index the dict was stored under; -1 when none
	drop  bool        // the reader asked to leave it out of the lists it is appended to
}

// indexAt is the size from which a dict keeps an index of its keys, so
// that a pickle with a huge dict cannot make setting keys quadratic.
const indexAt = 16

// Get returns the value stored under the string key.
func (d *Dict) Get(key string) (any, bool) {
	if d.index != nil {
		if i, ok := d.index[key]; ok {
			return d.Items[i].Value, true
		}
		return nil, false
	}
	for _, p := range d.Items {
		if s, ok := p.Key.(string); ok && s == key {
			return p.Value, true
		}
	}
	return nil, false
}

// set stores v under k, replacing an equal key of a comparable kind.
func (d *Dict) set(k, v any) {
	if !comparableKey(k) {
		d.Items = append(d.Items, Pair{k, v})
		return
	}
	if d.index == nil && len(d.Items) >= indexAt {
		d.index = make(map[any]int, len(d.Items))
		for i, p := range d.Items {
			if comparableKey(p.Key) {
				d.index[p.Key] = i
			}
		}
	}
	if d.index != nil {
		if i, ok := d.index[k]; ok {
			d.Items[i].Value = v
			return
		}
		d.index[k] = len(d.Items)
		d.Items = append(d.Items, Pair{k, v})
		return
	}
	for i, p := range d.Items {
		if p.Key == k {
			d.Items[i].Value = v
			return
		}
	}
	d.Items = append(d.Items, Pair{k, v})
}

// comparableKey reports whether == on the key compares values (strings,
// numbers, booleans, None), not identities.
func comparableKey(k any) bool {
	switch k.(type) {
	case nil, bool, int64, float64, string:
		return true
	}
	return false
}

// asInt64 returns an integer value (or a bool, which Python treats as one).
func asInt64(v any) (int64, bool) {
	switch x := v.(type) {
	case int64:
		return x, true
	case bool:
		if x {
			return 1, true
		}
		return 0, true
	case *big.Int:
		if x.IsInt64() {
			return x.Int64(), true
		}
	}
	return 0, false
}
