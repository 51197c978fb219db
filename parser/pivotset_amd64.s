#include "textflag.h"

// func vectorCandidates(b []byte, tables *[128]byte, out []uint32) (n, scanned, newlines int)
//
// For each 32 bytes of b at i: p = plo[b[i] & 15] & phi[b[i] >> 4], the
// buckets whose pivots b[i] may be, and f = flo[b[i+1] & 15] &
// fhi[b[i+1] >> 4], the buckets whose pivots may be followed by b[i+1]
// (VPSHUFB looks up each lane's 16-byte table: tables holds plo, phi,
// flo, fhi, each twice). Where p & f != 0 the offset is appended to out.
// The newlines among the bytes are counted on the way (VPCMPEQB with
// '\n', POPCNT), so that the chunk is loaded once for both. It stops when
// fewer than 33 bytes are left (b[i+32] is read) or out has room for
// fewer than 32 more.
TEXT ·vectorCandidates(SB), NOSPLIT, $0-80
	MOVQ b_base+0(FP), SI
	MOVQ b_len+8(FP), CX
	MOVQ tables+24(FP), AX
	MOVQ out_base+32(FP), DI
	MOVQ out_len+40(FP), R9
	XORQ R10, R10 // n
	XORQ R11, R11 // scanned
	XORQ BX, BX   // newlines
	SUBQ $32, R9  // the most n may be before a block of 32
	JLT  done
	VMOVDQU 0(AX), Y1   // the pivots' low-nibble table
	VMOVDQU 32(AX), Y2  // … high-nibble
	VMOVDQU 64(AX), Y12 // the follows' low-nibble table
	VMOVDQU 96(AX), Y13 // … high-nibble
	MOVQ $0x0f0f0f0f0f0f0f0f, DX
	MOVQ DX, X3
	VPBROADCASTQ X3, Y3 // 0x0f in every byte
	VPXOR Y6, Y6, Y6    // zero
	MOVQ $0x0a0a0a0a0a0a0a0a, DX
	MOVQ DX, X7
	VPBROADCASTQ X7, Y7 // '\n' in every byte

loop:
	LEAQ 33(R11), R12
	CMPQ R12, CX
	JGT  end
	CMPQ R10, R9
	JGT  end
	VMOVDQU (SI)(R11*1), Y0  // b[i:i+32]
	VMOVDQU 1(SI)(R11*1), Y9 // b[i+1:i+33]
	VPCMPEQB Y7, Y0, Y8
	VPMOVMSKB Y8, R15
	POPCNTL R15, R15
	ADDQ R15, BX       // the newlines
	VPAND Y3, Y0, Y4   // low nibbles
	VPSRLW $4, Y0, Y5
	VPAND Y3, Y5, Y5   // high nibbles
	VPSHUFB Y4, Y1, Y4 // plo[low]
	VPSHUFB Y5, Y2, Y5 // phi[high]
	VPAND Y4, Y5, Y4   // p
	VPAND Y3, Y9, Y10
	VPSRLW $4, Y9, Y11
	VPAND Y3, Y11, Y11
	VPSHUFB Y10, Y12, Y10 // flo[low of the next]
	VPSHUFB Y11, Y13, Y11 // fhi[high of the next]
	VPAND Y10, Y11, Y10   // f
	VPAND Y4, Y10, Y4     // p & f
	VPCMPEQB Y6, Y4, Y4   // 0xff where no bucket is left
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
	ADDQ $32, R11
	JMP  loop

end:
	VZEROUPPER

done:
	MOVQ R10, n+56(FP)
	MOVQ R11, scanned+64(FP)
	MOVQ BX, newlines+72(FP)
	RET
