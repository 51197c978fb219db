package main

import (
	"errors"
	"io"
)

// ReadCloser is an opened input.
type ReadCloser = io.ReadCloser

// errIsDirectory is returned for an input that names a directory.
var errIsDirectory = errors.New("is a directory")

// Env is everything the program takes from the operating system. main
// binds it to the real process; tests bind it to buffers.
type Env struct {
	Stdin          io.Reader
	Stdout, Stderr io.Writer
	Getenv         func(string) string
	// IsTerminal and TermWidth take one of the streams above.
	IsTerminal func(stream any) bool
	TermWidth  func(stream any) int
	Open       func(name string) (ReadCloser, error)
	// Command starts a child process whose stdout and stderr go to the
	// writers; it returns a function that waits for it and returns its exit
	// status.
	Command func(name string, args []string, stdout, stderr io.Writer) (wait func() int, err error)
}
