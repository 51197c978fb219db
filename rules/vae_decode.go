package rules

import "github.com/oomdoc/oomdoc/parser"

// vaeDecode: a diffusion VAE decoding a large latent at high resolution.
func vaeDecode() Culprit {
	return Culprit{
		ID:        "vae-decode",
		Title:     "A diffusion VAE decoding a large latent at high resolution",
		Doc:       "Decoding latents to pixels runs convolutions and attention at full image resolution; its peak grows with width × height (and frames, for video, and images per batch) and is often the largest spike of a generation. Tiled or sliced decoding processes the image in pieces.",
		Recognise: "Frames in vae.decode / AutoencoderKL / decode_first_stage / upsampling blocks; \"vae: failed to allocate the compute buffer\"; the failure comes after sampling finished.",
		Excludes:  []string{parser.KindHostKill, parser.KindCPU, parser.KindServing},
		Signals: []Signal{
			{Name: vaeFrames, Strength: EvidenceSignal, Start: 2.5, Doc: "frames or lines in the VAE's decode"},
			{Name: vaePhase, Strength: EvidenceSignal, Start: 1.0, Doc: "the failure comes right after sampling finished (the decode phase)"},
		},
		WouldDecide: "the output resolution and batch of the decode",
		Capture:     "the image size and batch passed to the pipeline",
		Assess:      checkVAEDecode,
	}
}

// Signals of vae-decode.
const (
	vaeFrames = "vae-decode/vae-frames"
	vaePhase  = "vae-decode/decode-phase"
)

// vaeCue holds the words that point at a diffusion VAE decode.
func vaeCue() cue {
	return words("vae.decode", "vae: ", "vae_decode", "VAEDecode", "AutoencoderKL", "autoencoder_kl", "decode_first_stage", "first_stage_model", "tiled_decode", "VAE decode", "vae.tiled")
}

func checkVAEDecode(f *Facts) *Finding {
	ev := f.Ev
	e, ok := f.Find(vaeCue())
	if !ok {
		e, ok = f.Notice("vae")
	}
	if !ok && ev.Phase != parser.PhaseDecode {
		return nil
	}
	fd := &Finding{Culprit: "vae-decode", Event: ev.ID, Quantities: Quantities{RequestedBytes: f.Requested, Inference: true}}
	if ok {
		fd.fire(vaeFrames)
	} else {
		fd.fire(vaePhase)
		e = f.EventLine()
	}
	fd.Evidence = append(fd.Evidence, e, f.EventLine())
	fd.Title = "The VAE decode of a high-resolution image does not fit"
	fd.Explanation = "Decoding latents to pixels runs convolutions and attention at full image resolution; its peak grows with width × height (and frames, for video) and is often the largest spike of a generation. Tiled or sliced decoding processes the image in pieces."
	return fd
}
