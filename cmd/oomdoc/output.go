package main

import (
	"fmt"
	"os"
	"path/filepath"
)

// outputFile is the report file of -o/--output. The report is written to
// a temporary file beside it and renamed over FILE only when complete, so
// that a failed run never leaves half a report (or clobbers the last one).
type outputFile struct {
	f    *os.File
	name string
	done bool // committed or discarded
}

// createOutput opens the temporary file for name.
func createOutput(name string) (*outputFile, error) {
	f, err := os.CreateTemp(filepath.Dir(name), "."+filepath.Base(name)+".*.tmp")
	if err != nil {
		return nil, fmt.Errorf("create %s: %w", name, unwrapPath(err))
	}
	return &outputFile{f: f, name: name}, nil
}

// Write appends to the temporary file.
func (o *outputFile) Write(p []byte) (int, error) { return o.f.Write(p) }

// Commit closes the temporary file and renames it to the report's name.
func (o *outputFile) Commit() error {
	o.done = true
	err := o.f.Chmod(0o644)
	if cerr := o.f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(o.f.Name(), o.name)
	}
	if err != nil {
		_ = os.Remove(o.f.Name())
		return fmt.Errorf("write %s: %w", o.name, err)
	}
	return nil
}

// Discard closes and removes the temporary file, unless it was already
// committed or discarded.
func (o *outputFile) Discard() {
	if o.done {
		return
	}
	o.done = true
	_ = o.f.Close()
	_ = os.Remove(o.f.Name())
}
