package render

import (
	"encoding/json"
	"fmt"
	"math"
	"regexp"
	"sort"
	"strings"
)

// This file is a small JSON Schema (2020-12) validator for the subset of
// keywords report.schema.json uses: type, const, enum, properties,
// required, items, minimum, maximum, pattern, anyOf, $ref to "#/$defs/…".
// A keyword outside the subset is an error, so that the schema can never
// say more than this validator checks. Keywords apply only to instances
// of their type (minimum to numbers, required to objects), as the
// standard says; properties not named are allowed, as the contract grows
// by adding fields.

// annotations carry no assertion.
var annotations = map[string]bool{"$schema": true, "$id": true, "$defs": true, "title": true, "description": true, "$comment": true}

// validator checks instances against one schema document.
type validator struct {
	root map[string]any
}

// decodeJSON reads a document keeping numbers exact, so that integers and
// fractions can be told apart.
func decodeJSON(data []byte) (any, error) {
	dec := json.NewDecoder(strings.NewReader(string(data)))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return nil, err
	}
	return v, nil
}

// validate returns every violation, each with its JSON pointer.
func (v *validator) validate(inst any) []string {
	var errs []string
	v.check(v.root, inst, "", &errs)
	return errs
}

func (v *validator) resolve(ref string) (map[string]any, error) {
	name, ok := strings.CutPrefix(ref, "#/$defs/")
	if !ok {
		return nil, fmt.Errorf("unsupported $ref %q", ref)
	}
	defs, _ := v.root["$defs"].(map[string]any)
	s, ok := defs[name].(map[string]any)
	if !ok {
		return nil, fmt.Errorf("no $defs/%s", name)
	}
	return s, nil
}

// typeOf names an instance's JSON type; a number without a fraction is
// an "integer" (and a "number").
func typeOf(inst any) string {
	switch x := inst.(type) {
	case nil:
		return "null"
	case bool:
		return "boolean"
	case string:
		return "string"
	case []any:
		return "array"
	case map[string]any:
		return "object"
	case json.Number:
		if _, err := x.Int64(); err == nil {
			return "integer"
		}
		if f, err := x.Float64(); err == nil && f == math.Trunc(f) && !strings.ContainsAny(x.String(), ".eE") {
			return "integer"
		}
		return "number"
	}
	return fmt.Sprintf("%T", inst)
}

func hasType(inst any, want string) bool {
	t := typeOf(inst)
	return t == want || want == "number" && t == "integer"
}

func equalJSON(a, b any) bool {
	ja, _ := json.Marshal(a)
	jb, _ := json.Marshal(b)
	return string(ja) == string(jb)
}

func (v *validator) check(s map[string]any, inst any, at string, errs *[]string) {
	fail := func(format string, args ...any) {
		*errs = append(*errs, fmt.Sprintf("%s: %s", orRoot(at), fmt.Sprintf(format, args...)))
	}
	keys := make([]string, 0, len(s))
	for k := range s {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		kw := s[k]
		switch k {
		case "$ref":
			sub, err := v.resolve(kw.(string))
			if err != nil {
				fail("%v", err)
				continue
			}
			v.check(sub, inst, at, errs)
		case "type":
			var types []string
			switch t := kw.(type) {
			case string:
				types = []string{t}
			case []any:
				for _, x := range t {
					types = append(types, x.(string))
				}
			}
			ok := false
			for _, t := range types {
				ok = ok || hasType(inst, t)
			}
			if !ok {
				fail("is %s, want %s", typeOf(inst), strings.Join(types, " or "))
			}
		case "const":
			if !equalJSON(inst, kw) {
				fail("is %v, want %v", inst, kw)
			}
		case "enum":
			ok := false
			for _, e := range kw.([]any) {
				ok = ok || equalJSON(inst, e)
			}
			if !ok {
				fail("%v is not one of %v", inst, kw)
			}
		case "properties":
			obj, ok := inst.(map[string]any)
			if !ok {
				continue
			}
			for name, sub := range kw.(map[string]any) {
				if val, present := obj[name]; present {
					v.check(sub.(map[string]any), val, at+"/"+name, errs)
				}
			}
		case "required":
			obj, ok := inst.(map[string]any)
			if !ok {
				continue
			}
			for _, name := range kw.([]any) {
				if _, present := obj[name.(string)]; !present {
					fail("lacks %q", name)
				}
			}
		case "items":
			arr, ok := inst.([]any)
			if !ok {
				continue
			}
			for i, el := range arr {
				v.check(kw.(map[string]any), el, fmt.Sprintf("%s/%d", at, i), errs)
			}
		case "minimum", "maximum":
			n, ok := inst.(json.Number)
			if !ok {
				continue
			}
			x, _ := n.Float64()
			limit, _ := kw.(json.Number).Float64()
			if k == "minimum" && x < limit || k == "maximum" && x > limit {
				fail("%v is beyond %s %v", n, k, limit)
			}
		case "pattern":
			str, ok := inst.(string)
			if !ok {
				continue
			}
			if !regexp.MustCompile(kw.(string)).MatchString(str) {
				fail("%q does not match %s", str, kw)
			}
		case "anyOf":
			ok := false
			for _, sub := range kw.([]any) {
				var sink []string
				v.check(sub.(map[string]any), inst, at, &sink)
				ok = ok || len(sink) == 0
			}
			if !ok {
				fail("matches none of anyOf")
			}
		default:
			if !annotations[k] {
				fail("schema keyword %q is outside the validator's subset", k)
			}
		}
	}
}

func orRoot(at string) string {
	if at == "" {
		return "/"
	}
	return at
}
