package advice

import (
	"fmt"
	"strings"
)

// familyClasses is the transformers class that loads each catalogue family
// whose models are not plain causal language models; remote-code families
// load through an Auto class with trust_remote_code=True.
func familyClasses() map[string]string {
	return map[string]string{
		"llava-1.5":   "LlavaForConditionalGeneration",
		"llava-next":  "LlavaNextForConditionalGeneration",
		"qwen2-vl":    "Qwen2VLForConditionalGeneration",
		"qwen2.5-vl":  "Qwen2_5_VLForConditionalGeneration",
		"mllama":      "MllamaForConditionalGeneration",
		"gemma3":      "Gemma3ForConditionalGeneration",
		"whisper":     "WhisperForConditionalGeneration",
		"t5":          "T5ForConditionalGeneration",
		"bert":        "AutoModel",
		"clip-vision": "CLIPVisionModel",
		"ovis2.5":     "AutoModelForCausalLM+remote",
		"ovis2":       "AutoModelForCausalLM+remote",
		"internvl2.5": "AutoModel+remote",
	}
}

// A loader is how a snippet loads the model.
type loader struct {
	Class  string // "LlavaForConditionalGeneration"
	Remote bool   // needs trust_remote_code=True
	From   string // "the log (line 5)", "the catalogue", "the model's modality"
}

// call spells a from_pretrained call of the model expression id with the
// extra arguments: `LlavaForConditionalGeneration.from_pretrained("id", a, b)`.
func (l loader) call(id string, args ...string) string {
	if l.Remote {
		args = append(args, "trust_remote_code=True")
	}
	return fmt.Sprintf("%s.from_pretrained(%s, %s)", l.Class, id, strings.Join(args, ", "))
}

// callWrapped is call with the arguments on a second, indented line.
func (l loader) callWrapped(id string, args ...string) string {
	if l.Remote {
		args = append(args, "trust_remote_code=True")
	}
	return fmt.Sprintf("%s.from_pretrained(\n    %s, %s)", l.Class, id, strings.Join(args, ", "))
}

// importLine imports the class (and BitsAndBytesConfig when asked).
func (l loader) importLine(extra ...string) string {
	names := append([]string{l.Class}, extra...)
	return "from transformers import " + strings.Join(names, ", ")
}

// loader picks the class a snippet loads the model with: the one the log
// uses, else the catalogue's class for the model's family, else the Auto
// class of the model's modality (image-text models do not load through
// AutoModelForCausalLM).
func (c *fixContext) loader() loader {
	if c.lf.modelClass != nil {
		return loader{Class: c.lf.modelClass.Text, From: fmt.Sprintf("the class the log uses (line %d)", c.lf.modelClass.Line)}
	}
	if c.f.Model != nil {
		fam := strings.ToLower(c.f.Model.Family)
		for prefix, cls := range familyClasses() {
			if fam == prefix || strings.HasPrefix(fam, prefix+" ") {
				name, remote := strings.CutSuffix(cls, "+remote")
				return loader{Class: name, Remote: remote, From: "the catalogue's class for " + c.f.Model.ID}
			}
		}
		v := strings.ToLower(c.f.Model.Vision)
		switch {
		case strings.HasPrefix(v, "audio"):
			return loader{Class: "AutoModelForSpeechSeq2Seq", From: "the model's modality"}
		case v != "" && !strings.HasPrefix(v, "none"):
			return loader{Class: "AutoModelForImageTextToText", From: "the model's modality"}
		}
		return loader{Class: "AutoModelForCausalLM", From: "the model's modality"}
	}
	if c.fd.Culprit == "visual-tokens" || c.hasNotice("image-input") || c.lf.visionFrames != nil {
		return loader{Class: "AutoModelForImageTextToText", From: "the model's modality"}
	}
	return loader{Class: "AutoModelForCausalLM", From: "the model's modality"}
}

func (c *fixContext) hasNotice(id string) bool {
	_, ok := c.f.Notice(id)
	return ok
}
