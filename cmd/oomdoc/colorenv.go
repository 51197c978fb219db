package main

import (
	"strconv"
	"strings"
)

// autoColor decides --color=auto from the environment: NO_COLOR (set and
// not empty) turns colour off, CLICOLOR_FORCE or FORCE_COLOR (set and not
// "0"/"false") turns it on off a terminal, CLICOLOR=0 and TERM=dumb turn
// it off on one (no-color.org, bixense.com/clicolors).
func autoColor(getenv func(string) string, tty bool) bool {
	if getenv("NO_COLOR") != "" {
		return false
	}
	if forced(getenv("CLICOLOR_FORCE")) || forced(getenv("FORCE_COLOR")) {
		return true
	}
	return tty && getenv("TERM") != "dumb" && getenv("CLICOLOR") != "0"
}

// forced reads a CLICOLOR_FORCE/FORCE_COLOR value: set, and not 0 or false.
func forced(v string) bool {
	v = strings.ToLower(strings.TrimSpace(v))
	return v != "" && v != "0" && v != "false"
}

// columns reads COLUMNS; 0 when unset or not a positive number.
func columns(getenv func(string) string) int {
	n, err := strconv.Atoi(strings.TrimSpace(getenv("COLUMNS")))
	if err != nil || n <= 0 {
		return 0
	}
	return n
}
