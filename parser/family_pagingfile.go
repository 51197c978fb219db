package parser

import (
	"sync"
)

// Windows commit-limit failures: the system's commit charge (RAM plus the
// paging file) cannot back a new allocation or a DLL's image, and Windows
// says so with error 1455 (ERROR_COMMITMENT_LIMIT) in its own words, in
// the user's language. PyTorch on Windows meets it while a DataLoader
// worker or a second process imports torch and maps the CUDA libraries;
// it is host memory that ran out, not the GPU's.
type windowsPatterns struct {
	rePagingFile *lazyRegexp
}

// windowsRes compiles the Windows patterns on first use, once per process.
var windowsRes = sync.OnceValue(func() *windowsPatterns {
	return &windowsPatterns{
		// "OSError: [WinError 1455] The paging file is too small for this
		// operation to complete. Error loading "…\torch\lib\cudnn_adv_infer64_8.dll"
		// or one of its dependencies.", the same in Chinese ("[WinError 1455]
		// 页面文件太小，无法完成操作。"), a Rust-built server's "The paging file is
		// too small for this operation to complete. (os error 1455)", a JVM's
		// "CreateProcess error=1455, The paging file is too small …"
		rePagingFile: lazyRE(`\[WinError 1455\]|\(os error 1455\)|\berror=1455\b|[Tt]he paging file is too small for this operation|页面文件太小|ページング ファイルが小さすぎ`),
	}
})

// windowsMatchers are the Windows system-memory families.
func windowsMatchers() []failureMatcher {
	return []failureMatcher{
		{
			name:    "windows-paging-file",
			anchors: []string{"WinError 1455", "(os error 1455)", "The paging file is too small", "页面文件太小", "ページング ファイル"},
			locate:  windowsRes().rePagingFile,
			kind:    KindCPU,
			fill: func(ev *Event, _ string) {
				ev.Framework, ev.Variant = "windows", "windows-commit-limit"
				ev.Device = &Device{Type: "cpu"}
			},
		},
	}
}
