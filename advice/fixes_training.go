package advice

import (
	"fmt"
	"strconv"

	"github.com/oomdoc/oomdoc/parser"
	"github.com/oomdoc/oomdoc/rules"
)

func activationFixes(c *fixContext) []Fix {
	micro := "TrainingArguments(..., per_device_train_batch_size=B // 2, gradient_accumulation_steps=2 * G)  # B, G: your values"
	var cites []fact
	if s, ok := c.f.Setting("per_device_train_batch_size"); ok {
		if n, err := strconv.Atoi(s.Value); err == nil && n > 1 {
			micro = fmt.Sprintf("TrainingArguments(..., per_device_train_batch_size=%d, gradient_accumulation_steps=2 * G)  # was %d (line %d); G: your value", n/2, n, s.Line)
			cites = append(cites, fact{Line: s.Line, Token: s.Name})
			if g, ok := c.f.Setting("gradient_accumulation_steps"); ok {
				if k, err := strconv.Atoi(g.Value); err == nil && k > 0 {
					micro = fmt.Sprintf("TrainingArguments(..., per_device_train_batch_size=%d, gradient_accumulation_steps=%d)  # were %d and %d (lines %d, %d)", n/2, 2*k, n, k, s.Line, g.Line)
					cites = append(cites, fact{Line: g.Line, Token: g.Name})
				}
			}
		}
	}
	if c.f.Ev.Kind == parser.KindTF || c.f.Ev.Framework == "tensorflow" || c.f.Ev.Framework == "jax" || c.f.Ev.Kind == parser.KindXLA {
		return []Fix{{
			ID:      "gradient-checkpointing",
			Title:   "Enable gradient checkpointing",
			Why:     "Checkpointing keeps only layer boundaries and recomputes the rest in backward, cutting activation memory by a large factor.",
			Snippet: "# TensorFlow: block = tf.recompute_grad(block)   JAX: block = jax.checkpoint(block)",
			Caveat:  "About 20–30% slower steps. Training only: it does nothing for inference.",
		}, {
			ID:      "smaller-micro-batch",
			Title:   "Halve the micro-batch and double gradient accumulation",
			Why:     "Activations scale with the micro-batch; accumulation keeps the effective batch (and the results) the same.",
			Snippet: "# Keras 3: model.fit(..., batch_size=B // 2) with keras.optimizers.AdamW(..., gradient_accumulation_steps=2)\n#   a tf.data pipeline sets its own batch, which fit's batch_size does not change: ds.batch(B // 2)\n# optax: optax.MultiSteps(optimizer, every_k_schedule=2)",
			Caveat:  "Slower per sample.",
		}}
	}
	return []Fix{{
		ID:      "gradient-checkpointing",
		Title:   "Enable gradient checkpointing",
		Why:     "Checkpointing keeps only layer boundaries and recomputes the rest in backward, cutting activation memory by a large factor.",
		Snippet: "model.gradient_checkpointing_enable(gradient_checkpointing_kwargs={\"use_reentrant\": False})\n# Trainer: TrainingArguments(..., gradient_checkpointing=True)",
		Caveat:  "About 20–30% slower steps. Training only: it does nothing for inference.",
	}, {
		ID:      "smaller-micro-batch",
		Title:   "Halve the micro-batch and double gradient accumulation",
		Why:     "Activations scale with the micro-batch; accumulation keeps the effective batch (and the results) the same.",
		Snippet: micro,
		cites:   cites,
		Caveat:  "Slower per sample.",
	}, {
		ID:      "shorter-sequences",
		Title:   "Shorten max_seq_length (or crop images/video)",
		Why:     "Activations scale with sequence length (attention with its square without fused kernels).",
		Snippet: "max_seq_length = 1024",
		Caveat:  "Truncates long examples.",
	}}
}

func optimizerFixes(c *fixContext) []Fix {
	eight := Fix{
		ID:      "8bit-optimizer",
		Title:   "Use an 8-bit AdamW",
		Why:     "8-bit states take 2 bytes per parameter instead of float32's 8.",
		Snippet: "TrainingArguments(..., optim=\"adamw_bnb_8bit\")  # or paged_adamw_8bit\n# plain PyTorch: bnb.optim.AdamW8bit(model.parameters(), lr=...)",
		Caveat:  "Needs bitsandbytes; matches 32-bit Adam closely in practice.",
	}
	if c.f.Params > 0 {
		eight.SavesBytes = bytesp(AdamState8bitSaving(c.f.Params))
		eight.Saving = fmt.Sprintf("optimizer state %s → %s", size(c.f.Params*8), size(c.f.Params*2))
	}
	return []Fix{{
		ID:      "train-lora",
		Title:   "Train LoRA adapters instead of every weight",
		Why:     "Only the adapters get gradients and optimizer state — usually well under 1% of the parameters.",
		Snippet: "from peft import LoraConfig, get_peft_model\nmodel = get_peft_model(model, LoraConfig(r=16, lora_alpha=32, target_modules=\"all-linear\"))",
		Caveat:  "Adapters are less expressive than full fine-tuning.",
	}, eight}
}

func leakFixes(c *fixContext) []Fix {
	if c.fd.Variant == rules.VariantEvalAccumulate {
		return []Fix{{
			ID:      "eval-accumulation-steps",
			Title:   "Move evaluation predictions to the CPU every few steps",
			Why:     "eval_accumulation_steps makes the Trainer copy accumulated predictions to the CPU and free them on the GPU every N steps.",
			Snippet: "TrainingArguments(..., eval_accumulation_steps=8, per_device_eval_batch_size=8)\n# keep only what the metric needs:\ntrainer = Trainer(..., preprocess_logits_for_metrics=lambda logits, labels: logits.argmax(dim=-1))",
			Caveat:  "Slower evaluation (device-to-host copies); CPU RAM then holds the predictions.",
		}, {
			ID:      "reduce-logits-before-keeping",
			Title:   "Keep reduced predictions, not full logits",
			Why:     "Only the argmax (or the few top scores) is needed for most metrics; storing it instead of the vocabulary-wide logits shrinks the kept tensor by the vocabulary size.",
			Snippet: "preds.append(logits.argmax(dim=-1).cpu())  # not: preds.append(logits)",
			Caveat:  "Metrics that need probabilities must keep them (on the CPU).",
		}}
	}
	return []Fix{{
		ID:      "detach-accumulators",
		Title:   "Stop keeping tensors alive across iterations",
		Why:     "A running loss summed as a tensor keeps every step's graph; outputs appended to a list keep their activations.",
		Snippet: "total_loss += loss.item()          # not: total_loss += loss\npreds.append(out.detach().cpu())   # not: preds.append(out)",
		Caveat:  "None.",
	}, {
		ID:      "record-memory-history",
		Title:   "Record a memory snapshot to see what grows",
		Why:     "The snapshot shows every live allocation with the stack that made it.",
		Snippet: snapshotRecipe,
		Caveat:  "Recording slows the run; keep max_entries bounded.",
	}}
}

const snapshotRecipe = `import torch
torch.cuda.memory._record_memory_history(max_entries=100_000)
try:
    run()  # the failing code
finally:
    torch.cuda.memory._dump_snapshot("oom_snapshot.pickle")  # open at https://pytorch.org/memory_viz`

func noGradFixes(c *fixContext) []Fix {
	return []Fix{{
		ID:      "wrap-inference-mode",
		Title:   "Run evaluation under torch.inference_mode() (or torch.no_grad())",
		Why:     "Without autograd no graph is recorded and activations are freed as soon as each layer is done.",
		Snippet: "model.eval()\nwith torch.inference_mode():\n    for batch in loader:\n        out = model(**batch)",
		Caveat:  "Tensors made under inference_mode cannot be used in autograd later.",
	}}
}

func batchFixes(c *fixContext) []Fix {
	snippet := "batch_size = batch_size // 2"
	var cites []fact
	for _, name := range []string{"batch_size", "per_device_eval_batch_size", "eval_batch_size"} {
		if s, ok := c.f.Setting(name); ok {
			if n, err := strconv.Atoi(s.Value); err == nil && n > 1 {
				snippet = fmt.Sprintf("%s = %d  # was %d (line %d)", name, n/2, n, s.Line)
				cites = append(cites, fact{Line: s.Line, Token: name})
				break
			}
		}
	}
	fx := Fix{
		ID:      "halve-batch",
		Title:   "Halve the inference batch",
		Why:     "Activation memory of a forward pass is proportional to the batch.",
		Snippet: snippet + "\n# or find it automatically: accelerate.utils.find_executable_batch_size",
		cites:   cites,
		Caveat:  "Lower throughput.",
	}
	return []Fix{fx}
}
