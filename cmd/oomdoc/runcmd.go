package main

import (
	"errors"
	"fmt"
	"github.com/oomdoc/oomdoc/render"
	"github.com/oomdoc/oomdoc/rules"
	"syscall"

	"github.com/oomdoc/oomdoc/parser"
)

// RunCmd runs a command, passes its output through, and reports on failure.
type RunCmd struct {
	ReportFlags
	Command []string `arg:"" passthrough:"" name:"command" help:"The command and its arguments (after --)."`
	Capture bool     `help:"Record PyTorch's CUDA memory history in the command (a sitecustomize on PYTHONPATH) and read the memory snapshot dumped when it runs out. Off by default: recording slows every CUDA allocation."`
	capt    *captureRun
}

// Run starts the command as if it ran directly (see startCommand), passes
// its stdout and stderr through first and unchanged, and analyses a copy
// that never holds the command back. When the command fails, the report
// follows on stderr; oomdoc then ends as the command ended: with its exit
// status, or killed by the same signal. Ctrl-C ends quietly, without a
// report.
func (c *RunCmd) Run(env *Env) error {
	h, err := c.hints()
	if err != nil {
		return err
	}
	if err := c.checkFlags(); err != nil {
		return err
	}
	args := rawCommand(c.Command)
	if len(args) > 0 && args[0] == "--" {
		args = args[1:]
	}
	if len(args) == 0 {
		return &exitError{code: exitUsage, err: errors.New("run: no command given (oomdoc run -- python train.py)")}
	}
	ana := newAnalysisBuffer(analysisLimit)
	done := make(chan parsed, 1)
	go func() {
		lowerPriority()
		res, err := safeParse(ana, args[0], parser.Options{OneThread: true})
		ana.Close() // the parser may stop early (binary output): free the queue
		done <- parsed{res, err}
	}()
	stdout, stderr := &tap{dst: env.Stdout, ana: ana}, &tap{dst: env.Stderr, ana: ana}
	wait, err := c.startChild(env, args, stdout, stderr) // capture.go
	if err != nil {
		ana.Close()
		<-done
		return &exitError{code: exitNoCommand, err: errors.New(render.SafeLine(fmt.Sprintf("run %s: %v", args[0], err)))}
	}
	status := wait()
	ana.Close()
	p := <-done
	c.takeCapture(env, p.res, status)
	sig := syscall.Signal(0)
	code := status
	if status < 0 {
		sig = syscall.Signal(-status)
		code = 128 + int(sig)
	}
	if code != 0 && sig != syscall.SIGINT && code != 128+int(syscall.SIGINT) {
		c.report(env, p, code, ana.Skipped(), h)
	}
	if sig != 0 {
		return &exitError{code: -int(sig)} // main re-raises it on oomdoc
	}
	return &exitError{code: code}
}

// parsed is the analysis's outcome.
type parsed struct {
	res *parser.Result
	err error
}

// report prints what the analysis found on stderr, with what it could not
// see. An output the parser refused is said so, never reported as "no
// failure".
func (c *RunCmd) report(env *Env, p parsed, code int, skipped int64, h rules.Hints) {
	say := func(format string, a ...any) {
		fmt.Fprintf(env.Stderr, "oomdoc: "+format+"\n", a...)
	}
	if p.res == nil || errors.Is(p.err, parser.ErrBinary) {
		reason := "it could not be read"
		if p.err != nil {
			reason = render.Safe(oneLine(p.err.Error()))
		}
		say("the command's output was not analysed: %s", reason)
		return
	}
	res := p.res
	hostKill := len(res.Events) == 0 && code == 128+int(syscall.SIGKILL)
	if hostKill {
		res = withSuspectedHostKill(res, code)
	}
	reps := c.analyse([]*parser.Result{res}, h)
	if hostKill {
		reps[0].Capture = append(reps[0].Capture, hostKillCapture()...)
	}
	if err := c.write(env, env.Stderr, reps); err != nil && !isBrokenPipe(err) {
		say("%s", render.Safe(oneLine(err.Error())))
	}
	if errors.Is(p.err, parser.ErrInputLimit) {
		say("%s", parser.ErrInputLimit.Error())
	}
	if skipped > 0 {
		say("the analysis fell behind the command's output and skipped %d bytes of it; the passthrough is complete", skipped)
	}
}
