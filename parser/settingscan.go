package parser

import "strings"

// A setting is one name = value pair a line assigns: "max_pixels=768*768"
// reads as {max_pixels, 768*768}.
type setting struct{ name, value string }

// settingsIn returns up to n settings that text assigns, left to right,
// each a name of names at a word's start (the line's, or after a space,
// "(", ",", "{", a quote or "-"), then an optional quote and spaces, "="
// or ":", spaces, an optional quote and a value that runs to the next
// space, quote, ",", ")" or "}":
//
//	processor(max_pixels=768*768, min_pixels=256*28*28)
//	{"torch_dtype": "float32"}
//	--max-model-len=4096
//
// It reads exactly what the pattern
//
//	(?:^|[\s(,{"'-])(NAME|…)["']?\s*[=:]\s*["']?([^,)\s"'}]+)
//
// finds with FindAllStringSubmatch(text, n) (TestSettingsInEqualsThePattern,
// FuzzSettingsIn), without compiling a 60-way alternation (0.1 ms and
// 150 KB: a third of the 0.3 ms a pasted log spent compiling patterns). A name
// ends where the name characters (letters, digits, "_" and "-") do,
// because what follows a name in the pattern is none of them, so the
// word at a start is the one name it can be.
func settingsIn(text string, names map[string]bool, n int) []setting {
	var out []setting
	for at := 0; at < len(text) && len(out) < n; {
		s, end, ok := settingAt(text, at, names)
		if !ok {
			break
		}
		out = append(out, s)
		at = end
	}
	return out
}

// settingAt finds the leftmost setting that starts at or after from and
// returns it with the offset just past its value.
func settingAt(text string, from int, names map[string]bool) (setting, int, bool) {
	for s := from; s < len(text); s++ {
		if s == 0 {
			// "^" comes first in the pattern's alternation, then a start
			// byte at offset 0
			if v, end, ok := settingFrom(text, 0, names); ok {
				return v, end, true
			}
		}
		if !settingStartByte(text[s]) {
			continue
		}
		if v, end, ok := settingFrom(text, s+1, names); ok {
			return v, end, true
		}
	}
	return setting{}, 0, false
}

// settingFrom reads a setting whose name begins at offset at.
func settingFrom(text string, at int, names map[string]bool) (setting, int, bool) {
	i := at
	for i < len(text) && (identByte(text[i]) || text[i] == '-') {
		i++
	}
	name := text[at:i]
	if !names[name] {
		return setting{}, 0, false
	}
	if i < len(text) && (text[i] == '"' || text[i] == '\'') {
		i++
	}
	for i < len(text) && isSpaceByte(text[i]) {
		i++
	}
	if i == len(text) || (text[i] != '=' && text[i] != ':') {
		return setting{}, 0, false
	}
	i++
	for i < len(text) && isSpaceByte(text[i]) {
		i++
	}
	if i < len(text) && (text[i] == '"' || text[i] == '\'') {
		i++
	}
	v := i
	for i < len(text) && !isSpaceByte(text[i]) && strings.IndexByte(`,)"'}`, text[i]) < 0 {
		i++
	}
	if i == v {
		return setting{}, 0, false
	}
	return setting{name: name, value: text[v:i]}, i, true
}

// settingStartByte is a byte after which a setting's name may start.
func settingStartByte(c byte) bool {
	return isSpaceByte(c) || strings.IndexByte(`(,{"'-`, c) >= 0
}
