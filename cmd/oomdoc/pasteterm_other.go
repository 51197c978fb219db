//go:build !linux

package main

// pasteTerminal leaves the terminal as it is where its modes are not
// switched (pasted lines are then limited by the terminal's line buffer).
func pasteTerminal(any) (restore func()) { return func() {} }
