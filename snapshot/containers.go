package snapshot

import (
	"fmt"
	"math/big"
	"strconv"
)

// Costs charged against Limits.MaxValueBytes: rough Go sizes of a
// container's header and of one slot.
const (
	costHeader = 56
	costSlot   = 16
	costPair   = 32
	costMemo   = 48
)

// container runs the opcodes that build lists, tuples, dicts and sets,
// and those that use the memo or name a class.
func (d *decoder) container(op byte, a arg) error {
	switch op {
	case opEmptyList:
		l := &List{}
		if d.opt.Discard != nil && d.opt.Refs != nil {
			l.discard = d.opt.Discard(d.stack)
		}
		return d.pushNew(l)
	case opEmptySet:
		return d.pushNew(&List{})
	case opEmptyDict:
		return d.pushNew(&Dict{memo: -1})
	case opEmptyTuple:
		return d.push(Tuple{})
	case opList, opFrozenSet:
		items, err := d.popMark()
		if err != nil {
			return err
		}
		return d.pushNew(&List{Items: d.keep(items)})
	case opTuple:
		items, err := d.popMark()
		if err != nil {
			return err
		}
		return d.pushTuple(items)
	case opTuple1, opTuple2, opTuple3:
		n := int(op-opTuple1) + 1
		if len(d.stack)-d.frameStart() < n {
			return d.in.fail("TUPLE%d needs %d values on the stack", n, n)
		}
		items := d.stack[len(d.stack)-n:]
		d.stack = d.stack[:len(d.stack)-n]
		return d.pushTuple(items)
	case opDict:
		items, err := d.popMark()
		if err != nil {
			return err
		}
		dict := &Dict{memo: -1}
		if err := d.setItems(dict, items); err != nil {
			return err
		}
		return d.pushNew(dict)
	case opAppend:
		v, err := d.pop()
		if err != nil {
			return err
		}
		return d.appendTo([]any{v})
	case opAppends, opAddItems:
		items, err := d.popMark()
		if err != nil {
			return err
		}
		return d.appendTo(items)
	case opSetItem:
		v, err := d.pop()
		if err != nil {
			return err
		}
		k, err := d.pop()
		if err != nil {
			return err
		}
		return d.setItemsTop([]any{k, v})
	case opSetItems:
		items, err := d.popMark()
		if err != nil {
			return err
		}
		return d.setItemsTop(items)
	case opMemoize, opPut, opBinPut, opLongBinPut:
		return d.put(op, a)
	case opGet, opBinGet, opLongBinGet:
		i, err := memoArg(d.in, op, a)
		if err != nil {
			return err
		}
		if i >= uint64(len(d.memo)) || !d.idx.assigned.has(i) {
			return d.in.fail("GET of memo %d, which was never stored", i)
		}
		v := d.memo[i]
		if d.opt.Refs != nil && d.opt.Refs[i] == d.in.op {
			d.memo[i] = nil // its last fetch: the memo no longer keeps it alive
		}
		return d.push(v)
	case opGlobal:
		return d.global(string(a.data), string(a.line2))
	case opStackGlobal:
		name, err := d.pop()
		if err != nil {
			return err
		}
		module, err := d.pop()
		if err != nil {
			return err
		}
		m, ok1 := module.(string)
		n, ok2 := name.(string)
		if !ok1 || !ok2 {
			return d.in.fail("STACK_GLOBAL needs a module and a name")
		}
		return d.global(m, n)
	case opReduce:
		return d.reduce()
	}
	return d.in.fail("opcode 0x%02x is not part of a memory snapshot", op)
}

// pushNew pushes a new container, charging its header.
func (d *decoder) pushNew(v any) error {
	if err := d.charge(costHeader); err != nil {
		return err
	}
	return d.push(v)
}

func (d *decoder) pushTuple(items []any) error {
	if err := d.charge(costHeader + costSlot*int64(len(items))); err != nil {
		return err
	}
	return d.push(append(Tuple(nil), items...))
}

// keep copies items, leaving out dicts the reader asked to drop.
func (d *decoder) keep(items []any) []any {
	out := make([]any, 0, len(items))
	for _, v := range items {
		if dict, ok := v.(*Dict); ok && dict.drop {
			d.dropped++
			continue
		}
		out = append(out, v)
	}
	return out
}

func (d *decoder) appendTo(items []any) error {
	t, err := d.top()
	if err != nil {
		return err
	}
	l, ok := t.(*List)
	if !ok {
		return d.in.fail("APPEND to a %s, not a list", typeName(t))
	}
	if l.discard {
		return nil
	}
	kept := d.keep(items)
	if err := d.charge(costSlot * int64(len(kept))); err != nil {
		return err
	}
	l.Items = append(l.Items, kept...)
	return nil
}

func (d *decoder) setItemsTop(items []any) error {
	t, err := d.top()
	if err != nil {
		return err
	}
	dict, ok := t.(*Dict)
	if !ok {
		return d.in.fail("SETITEM on a %s, not a dict", typeName(t))
	}
	return d.setItems(dict, items)
}

// setItems stores key, value pairs, then asks Drop about the dict.
func (d *decoder) setItems(dict *Dict, items []any) error {
	if len(items)%2 != 0 {
		return d.in.fail("a dict is given a key without a value")
	}
	if dict.drop {
		return nil
	}
	if err := d.charge(costPair * int64(len(items)/2)); err != nil {
		return err
	}
	if dict.Items == nil {
		dict.Items = make([]Pair, 0, len(items)/2)
	}
	for i := 0; i < len(items); i += 2 {
		dict.set(items[i], items[i+1])
	}
	if d.opt.Drop != nil && d.opt.Refs != nil && (dict.memo < 0 || !d.opt.Refs.referenced(uint64(dict.memo))) && d.opt.Drop(dict) {
		d.cost -= costPair * int64(len(dict.Items))
		dict.drop, dict.Items = true, nil
	}
	return nil
}

// put stores the top of the stack in the memo.
func (d *decoder) put(op byte, a arg) error {
	v, err := d.top()
	if err != nil {
		return err
	}
	var i uint64
	if op == opMemoize {
		var ok bool
		if i, ok = d.idx.next(); !ok {
			return d.in.fail("too many memoised objects")
		}
	} else {
		if i, err = memoArg(d.in, op, a); err != nil {
			return err
		}
		if !d.idx.put(i) {
			return d.in.fail("memo index %d skips past the %d stored so far", i, d.idx.n)
		}
	}
	if dict, ok := v.(*Dict); ok && dict.memo < 0 {
		dict.memo = int64(i)
	}
	if d.opt.Refs != nil && !d.opt.Refs.referenced(i) {
		return nil
	}
	for uint64(len(d.memo)) <= i { // indices run without gaps, so this grows by one
		if err := d.charge(costMemo); err != nil {
			return err
		}
		d.memo = append(d.memo, nil)
	}
	d.memo[i] = v
	return nil
}

// allowed reports the only callables a pickle may name: constructors of
// plain data that protocols 0-3 use for what they have no opcode for
// (_codecs.encode is how protocols 0-2 write bytes).
func allowed(c classRef) bool {
	switch c.module {
	case "collections":
		return c.name == "OrderedDict"
	case "_codecs":
		return c.name == "encode"
	case "builtins", "__builtin__":
		return c.name == "set" || c.name == "frozenset" || c.name == "bytearray"
	}
	return false
}

// global pushes an allowed callable; any other is refused.
func (d *decoder) global(module, name string) error {
	c := classRef{module, name}
	if allowed(c) {
		return d.push(c)
	}
	return d.in.fail("the pickle names %s; a memory snapshot holds only plain data, so the file was refused (nothing in it was run)", strconv.Quote(module+"."+name))
}

// reduce applies an allowed callable to plain arguments: OrderedDict()
// is a dict, set(list) and frozenset(list) a list, _codecs.encode(str,
// "latin1") and bytearray(bytes) bytes. Anything else is refused.
func (d *decoder) reduce() error {
	args, err := d.pop()
	if err != nil {
		return err
	}
	fn, err := d.pop()
	if err != nil {
		return err
	}
	c, isClass := fn.(classRef)
	t, isTuple := args.(Tuple)
	if !isClass || !isTuple {
		return d.in.fail("REDUCE calls a %s; a memory snapshot holds only plain data, so the file was refused (nothing in it was run)", typeName(fn))
	}
	bad := d.in.fail("REDUCE of %s.%s with arguments it does not take", c.module, c.name)
	switch c.name {
	case "OrderedDict":
		if len(t) != 0 {
			return bad
		}
		return d.pushNew(&Dict{memo: -1})
	case "set", "frozenset":
		l := &List{}
		if len(t) == 1 {
			src, ok := t[0].(*List)
			if !ok {
				return bad
			}
			l.Items = append(l.Items, src.Items...)
		} else if len(t) != 0 {
			return bad
		}
		if err := d.charge(costSlot * int64(len(l.Items))); err != nil {
			return err
		}
		return d.pushNew(l)
	case "encode":
		if len(t) != 2 {
			return bad
		}
		s, ok1 := t[0].(string)
		enc, ok2 := t[1].(string)
		if !ok1 || !ok2 || (enc != "latin1" && enc != "latin-1") {
			return bad
		}
		b := make(Bytes, 0, len(s))
		for _, r := range s {
			if r > 0xff {
				return bad
			}
			b = append(b, byte(r))
		}
		return d.push(b)
	default: // bytearray
		if len(t) == 0 {
			return d.push(Bytes{})
		}
		b, ok := t[0].(Bytes)
		if len(t) != 1 || !ok {
			return bad
		}
		return d.push(b)
	}
}

// typeName names a decoded value's Python type, for error messages.
func typeName(v any) string {
	switch v.(type) {
	case nil:
		return "None"
	case bool:
		return "bool"
	case int64, *big.Int:
		return "int"
	case float64:
		return "float"
	case string:
		return "str"
	case Bytes:
		return "bytes"
	case Tuple:
		return "tuple"
	case *List:
		return "list"
	case *Dict:
		return "dict"
	case classRef:
		return "class"
	}
	return fmt.Sprintf("%T", v)
}
