package main

import (
	"bytes"
	"fmt"
	"io"
	"strings"

	"github.com/oomdoc/oomdoc/advice"
	"github.com/oomdoc/oomdoc/models"
	"github.com/oomdoc/oomdoc/parser"
	"github.com/oomdoc/oomdoc/render"
	"github.com/oomdoc/oomdoc/rules"
	"github.com/oomdoc/oomdoc/snapshot"
)

// ReportFlags are the flags of every command that prints a report.
type ReportFlags struct {
	Format string `short:"f" enum:"text,markdown,md,json" default:"text" help:"Report format: text, markdown (or md) or json."`
	Color  string `enum:"auto,always,never" default:"auto" help:"Colour the text report: auto, always or never (NO_COLOR is honoured in auto)."`
	Width  int    `help:"Wrap the text report at this many columns (default: the terminal's width up to 100, else 80)."`
	Model  string `placeholder:"ORG/NAME" help:"The model that ran, when the log does not say (e.g. llava-hf/llava-1.5-13b-hf)."`
	GPU    string `name:"gpu" placeholder:"SIZE" help:"The GPU's memory, when the log does not say (e.g. 24GiB)."`
	// NoPager writes straight to the terminal.
	NoPager bool `name:"no-pager" help:"Do not page the report (by default a report taller than the terminal goes through $PAGER, else less -FRX; never when piped)."`

	measured map[string]*snapshot.Measured // memory snapshots read, by the input name of their report
}

// hints turns the flags into rule hints; a bad --gpu is a usage error.
func (f *ReportFlags) hints() (rules.Hints, error) {
	h := rules.Hints{Model: strings.TrimSpace(f.Model)}
	if f.GPU != "" {
		n, ok := parser.ParseSize(strings.TrimSpace(f.GPU))
		if !ok || n < 1<<20 || !strings.ContainsAny(f.GPU, "KMGTkmgt") {
			return h, &exitError{code: exitUsage, err: fmt.Errorf("--gpu %q: give a size with a unit, e.g. 24GiB", f.GPU)}
		}
		h.GPUBytes = &n
	}
	return h, nil
}

// options decides colour and width for a report written to out.
func (f *ReportFlags) options(env *Env, out io.Writer) render.Options {
	tty := env.IsTerminal(out)
	o := render.Options{Width: f.Width}
	switch f.Color {
	case "always":
		o.Color = true
	case "auto":
		o.Color = autoColor(env.Getenv, tty)
	}
	if o.Width <= 0 {
		o.Width = 80
		w := 0
		if tty {
			w = env.TermWidth(out)
		}
		if w <= 0 {
			w = columns(env.Getenv) // not a terminal, or its width unknown
		}
		if w > 0 {
			o.Width = min(w, 100)
		}
	}
	return o
}

// analyse builds one report per parsed input.
func (f *ReportFlags) analyse(results []*parser.Result, h rules.Hints) []advice.Report {
	cat := models.Load()
	reps := make([]advice.Report, 0, len(results))
	for _, res := range results {
		reps = append(reps, advice.Build(rules.Input{Result: res, Hints: h, Catalog: cat, Measured: f.measured[res.Input]}))
	}
	return reps
}

// write renders the reports: JSON as one document over every input (its
// schema lists the inputs), text and Markdown as one report per input.
func (f *ReportFlags) write(env *Env, out io.Writer, reps []advice.Report) error {
	if len(reps) == 0 {
		return nil
	}
	if f.Format == render.FormatJSON {
		reps = []advice.Report{advice.Merge(reps)}
	}
	f.warnUnknownModel(env)
	f.warnOtherModel(env, reps)
	f.warnOtherGPU(env, reps)
	opts := f.options(env, out)
	opts.Measured = f.measured
	dst := out
	var buf bytes.Buffer
	if out == env.Stdout {
		dst = &buf // the whole report first: it is paged only if taller than the screen
	}
	if err := f.render(dst, reps, opts); err != nil {
		return err
	}
	if dst == out {
		return nil
	}
	if err := writePaged(env, out, buf.Bytes(), f.NoPager); err != nil {
		return &exitError{code: exitWriteError, err: err}
	}
	return nil
}

// warnUnknownModel says on stderr when --model names a model oomdoc can
// neither find in its catalogue nor size from its name: the report then
// cannot use it, and silence would read as if it had.
func (f *ReportFlags) warnUnknownModel(env *Env) {
	id := strings.TrimSpace(f.Model)
	if id == "" {
		return
	}
	if _, ok := models.Load().Lookup(id); ok {
		return
	}
	if _, ok := models.ParamsFromName(id); ok {
		return
	}
	fmt.Fprintf(env.Stderr, "oomdoc: --model %s is not in the model catalogue and its name gives no parameter count; the report does not use it\n", render.Safe(id))
}

// warnOtherModel says on stderr when --model names another model than the
// one the log itself names ("--model llava-hf/llava-1.5-13b-hf" over a log
// that loads AIDC-AI/Ovis2.5-2B): the report follows the flag, and the
// user should know it overrode the log.
func (f *ReportFlags) warnOtherModel(env *Env, reps []advice.Report) {
	id := strings.TrimSpace(f.Model)
	if id == "" {
		return
	}
	for _, rep := range reps {
		if rep.Context == nil {
			continue
		}
		for _, m := range rep.Context.Models {
			if sameModel(m.ID, id) {
				return // the log names it too
			}
		}
		if len(rep.Context.Models) > 0 {
			m := rep.Context.Models[0]
			fmt.Fprintf(env.Stderr, "oomdoc: --model %s, but %s line %d names %s; the report uses --model\n", render.Safe(id), render.Safe(strings.Join(rep.Inputs, ", ")), m.Line, render.Safe(m.ID))
			return
		}
	}
}

// warnOtherGPU says on stderr when --gpu gives another capacity than the
// failure's own message prints: the log's figure is the device that
// failed, so it wins, and the user should know the flag was not used.
// Sizes within 5% are one device (vendors' GB against the runtime's GiB).
func (f *ReportFlags) warnOtherGPU(env *Env, reps []advice.Report) {
	h, err := f.hints()
	if err != nil || h.GPUBytes == nil {
		return
	}
	flag := *h.GPUBytes
	for _, rep := range reps {
		for _, ev := range rep.Events {
			if ev.TotalBytes == nil || *ev.TotalBytes <= 0 {
				continue
			}
			if d := *ev.TotalBytes - flag; d*20 > flag || -d*20 > flag {
				fmt.Fprintf(env.Stderr, "oomdoc: --gpu %s, but %s line %d prints a capacity of %s; the report uses the log's\n", render.Safe(strings.TrimSpace(f.GPU)), render.Safe(ev.Input), ev.Line, parser.FormatSize(*ev.TotalBytes))
			}
			return
		}
	}
}

// sameModel reports whether two model names are one model: equal but for
// case, or one the other's name without its organisation.
func sameModel(a, b string) bool {
	a, b = strings.ToLower(a), strings.ToLower(b)
	return a == b || strings.HasSuffix(a, "/"+b) || strings.HasSuffix(b, "/"+a)
}

// render writes every report to out.
func (f *ReportFlags) render(out io.Writer, reps []advice.Report, opts render.Options) error {
	for i, rep := range reps {
		sep := ""
		if i > 0 {
			sep = "\n"
		}
		if len(reps) > 1 && f.Format != render.FormatMarkdown {
			// as tail(1) does for several files
			sep += "==> " + render.Safe(strings.Join(rep.Inputs, ", ")) + " <==\n"
		}
		if _, err := io.WriteString(out, sep); err != nil {
			return &exitError{code: exitWriteError, err: err}
		}
		if err := render.Write(out, f.Format, rep, opts); err != nil {
			return &exitError{code: exitWriteError, err: err}
		}
	}
	return nil
}
