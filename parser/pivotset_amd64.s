#include "textflag.h"

// func vectorCandidates(b []byte, tables *[64]byte, out []uint32) (n, scanned int)
//
// For each 32 bytes of b: lo = tables[0:32][byte & 15], hi =
// tables[32:64][byte >> 4] (VPSHUFB looks up each lane's 16-byte table);
// the bytes where lo & hi != 0 are in the set, and their offsets are
// appended to out. It stops when fewer than 32 bytes are left or out has
// room for fewer than 32 more.
TEXT ·vectorCandidates(SB), NOSPLIT, $0-72
	MOVQ b_base+0(FP), SI
	MOVQ b_len+8(FP), CX
	MOVQ tables+24(FP), AX
	MOVQ out_base+32(FP), DI
	MOVQ out_len+40(FP), R9
	XORQ R10, R10 // n
	XORQ R11, R11 // scanned
	SUBQ $32, R9  // the most n may be before a block of 32
	JLT  done
	VMOVDQU 0(AX), Y1  // the low-nibble table
	VMOVDQU 32(AX), Y2 // the high-nibble table
	MOVQ $0x0f0f0f0f0f0f0f0f, DX
	MOVQ DX, X3
	VPBROADCASTQ X3, Y3 // 0x0f in every byte
	VPXOR Y6, Y6, Y6    // zero

loop:
	LEAQ 32(R11), R12
	CMPQ R12, CX
	JGT  end
	CMPQ R10, R9
	JGT  end
	VMOVDQU (SI)(R11*1), Y0
	VPAND Y3, Y0, Y4   // low nibbles
	VPSRLW $4, Y0, Y5
	VPAND Y3, Y5, Y5   // high nibbles
	VPSHUFB Y4, Y1, Y4 // lo[low]
	VPSHUFB Y5, Y2, Y5 // hi[high]
	VPAND Y4, Y5, Y4
	VPCMPEQB Y6, Y4, Y4 // 0xff where the byte is not in the set
	VPMOVMSKB Y4, R8
	NOTL R8
	TESTL R8, R8
	JZ   next

bits:
	BSFL R8, R13
	ADDL R11, R13
	MOVL R13, (DI)(R10*4)
	INCQ R10
	LEAL -1(R8), R14
	ANDL R14, R8
	JNZ  bits

next:
	MOVQ R12, R11
	JMP  loop

end:
	VZEROUPPER

done:
	MOVQ R10, n+56(FP)
	MOVQ R11, scanned+64(FP)
	RET
