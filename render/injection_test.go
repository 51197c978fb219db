package render

import (
	"bytes"
	"fmt"
	"strings"
	"testing"

	"github.com/yuin/goldmark"
	"github.com/yuin/goldmark/ast"
	"github.com/yuin/goldmark/extension"
	"github.com/yuin/goldmark/text"

	"github.com/oomdoc/oomdoc/advice"
	"github.com/oomdoc/oomdoc/models"
	"github.com/oomdoc/oomdoc/parser"
	"github.com/oomdoc/oomdoc/rules"
)

// hostile is what a log, a file name or a flag may try to smuggle into a
// Markdown report: a fence break-out, raw HTML, a heading, a link, an
// image, and invisible characters.
const hostile = "x\n\n```\n</details>\n<img src=x onerror=alert(1)>\n# INJECTED\n[link](javascript:alert(1)) ![i](javascript:1) <b>bold</b> \u200b\u202e ``` ~~~"

// TestMarkdownInjection renders a report whose input name, --model value
// and failure message carry the hostile text, parses the Markdown with a
// CommonMark (GFM) parser, and checks that its structure — headings, raw
// HTML, links, images, code blocks — is exactly that of the same report
// with harmless names: nothing from the input becomes markup.
func TestMarkdownInjection(t *testing.T) {
	logText := "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB. GPU 0 has a total capacity of 79.15 GiB of which 1.06 GiB is free. Including non-PyTorch memory, this process has 78.08 GiB memory in use. Of the allocated memory 77.50 GiB is allocated by PyTorch, and 120.00 MiB is reserved by PyTorch but unallocated. %s\n"
	render := func(name, model, extra string) string {
		res, err := parser.Parse(strings.NewReader(fmt.Sprintf(logText, extra)), name)
		if err != nil {
			t.Fatal(err)
		}
		rep := advice.Build(rules.Input{Result: res, Hints: rules.Hints{Model: model}, Catalog: models.Load()})
		if len(rep.Diagnoses) == 0 {
			t.Fatal("no diagnosis: the test needs evidence blocks")
		}
		var b bytes.Buffer
		if err := Markdown(&b, rep); err != nil {
			t.Fatal(err)
		}
		return b.String()
	}
	oneLine := strings.ReplaceAll(hostile, "\n", " ")
	bad := render("crash"+hostile+".log", "org/m"+hostile, oneLine)
	good := render("crash.log", "org/m", "plain words")
	badShape, goodShape := markdownShape(t, bad), markdownShape(t, good)
	if badShape != goodShape {
		t.Errorf("hostile text changed the Markdown structure\nhostile:\n%s\nharmless:\n%s\nMarkdown:\n%s", badShape, goodShape, bad)
	}
	var html bytes.Buffer
	if err := goldmark.New(goldmark.WithExtensions(extension.GFM)).Convert([]byte(bad), &html); err != nil {
		t.Fatal(err)
	}
	for _, s := range []string{"<img", "<b>", "<h1", "\u200b", "\u202e"} {
		if strings.Contains(html.String(), s) {
			t.Errorf("the rendered HTML holds %q", s)
		}
	}
}

// markdownShape lists a document's structural nodes: every heading with
// its level, every raw HTML node with its text, every link and image,
// every code block with its line count.
func markdownShape(t *testing.T, md string) string {
	md2 := goldmark.New(goldmark.WithExtensions(extension.GFM))
	src := []byte(md)
	doc := md2.Parser().Parse(text.NewReader(src))
	var b strings.Builder
	err := ast.Walk(doc, func(n ast.Node, entering bool) (ast.WalkStatus, error) {
		if !entering {
			return ast.WalkContinue, nil
		}
		switch v := n.(type) {
		case *ast.Heading:
			fmt.Fprintf(&b, "heading %d\n", v.Level)
		case *ast.HTMLBlock:
			var h strings.Builder
			for i := 0; i < v.Lines().Len(); i++ {
				seg := v.Lines().At(i)
				h.Write(seg.Value(src))
			}
			fmt.Fprintf(&b, "html block %q\n", h.String())
		case *ast.RawHTML:
			var h strings.Builder
			for i := 0; i < v.Segments.Len(); i++ {
				seg := v.Segments.At(i)
				h.Write(seg.Value(src))
			}
			fmt.Fprintf(&b, "raw html %q\n", h.String())
		case *ast.Link:
			fmt.Fprintf(&b, "link %q\n", v.Destination)
		case *ast.AutoLink:
			fmt.Fprintf(&b, "autolink %q\n", v.URL(src))
		case *ast.Image:
			fmt.Fprintf(&b, "image %q\n", v.Destination)
		case *ast.FencedCodeBlock, *ast.CodeBlock:
			fmt.Fprintf(&b, "code block\n")
		case *ast.ThematicBreak:
			fmt.Fprintf(&b, "rule\n")
		}
		return ast.WalkContinue, nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return b.String()
}
