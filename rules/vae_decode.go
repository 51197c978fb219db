package rules

import "github.com/oomdoc/oomdoc/parser"

// vaeDecode: a diffusion VAE decoding a large latent at high resolution.
func vaeDecode() Rule {
	return Rule{
		ID:        "vae-decode",
		Title:     "A diffusion VAE decoding a large latent at high resolution",
		Recognise: "Frames in vae.decode / AutoencoderKL / decode_first_stage / upsampling blocks; \"vae: failed to allocate the compute buffer\"; the failure comes after sampling finished.",
		Check:     checkVAEDecode,
	}
}

// vaeCue holds the words that point at a diffusion VAE decode.
func vaeCue() cue {
	return words("vae.decode", "vae: ", "vae_decode", "VAEDecode", "AutoencoderKL", "autoencoder_kl", "decode_first_stage", "first_stage_model", "tiled_decode", "VAE decode", "vae.tiled")
}

func checkVAEDecode(f *Facts) *Finding {
	ev := f.Ev
	switch ev.Kind {
	case parser.KindHostKill, parser.KindCPU, parser.KindServing:
		return nil
	}
	e, ok := f.Find(vaeCue())
	if !ok {
		e, ok = f.Notice("vae")
	}
	if !ok && ev.Phase != parser.PhaseDecode {
		return nil
	}
	if !ok {
		e = f.EventLine()
	}
	fd := &Finding{Culprit: "vae-decode", Event: ev.ID, Confidence: 0.8, Quantities: Quantities{RequestedBytes: f.Requested, Inference: true}}
	fd.Evidence = append(fd.Evidence, e, f.EventLine())
	fd.Title = "The VAE decode of a high-resolution image does not fit"
	fd.Explanation = "Decoding latents to pixels runs convolutions and attention at full image resolution; its peak grows with width × height (and frames, for video) and is often the largest spike of a generation. Tiled or sliced decoding processes the image in pieces."
	return fd
}
