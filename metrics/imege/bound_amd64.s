//go:build amd64 && !purego

#include "textflag.h"

// A tblock is 24 bytes: the statistics (4 × float32) at 0, off (int32) at
// 16, part (int32) at 20. A stat4 is 16 bytes.

// HSUM leaves the sum of the four lanes of acc in the low lane of dst,
// using tmp.
#define HSUM(acc, dst, tmp) \
	MOVAPS  acc, dst; \
	MOVHLPS acc, dst; \
	ADDPS   acc, dst; \
	MOVAPS  dst, tmp; \
	SHUFPS  $0x55, tmp, tmp; \
	ADDSS   tmp, dst

// BLOCK adds the squared differences of the block at SI+disp and its
// reference block (at DI + 16·off) to acc.
#define BLOCK(disp, acc) \
	MOVLQSX disp+16(SI), AX; \
	SHLQ    $4, AX; \
	MOVUPS  (DI)(AX*1), X1; \
	MOVUPS  disp(SI), X2; \
	SUBPS   X1, X2; \
	MULPS   X2, X2; \
	ADDPS   X2, acc

// func boundSSE(bs []tblock, st []stat4, base int, f float32) float32
TEXT ·boundSSE(SB), NOSPLIT, $0-68
	MOVQ  bs_base+0(FP), SI
	MOVQ  bs_len+8(FP), CX
	MOVQ  st_base+24(FP), DI
	MOVQ  base+48(FP), DX
	SHLQ  $4, DX
	ADDQ  DX, DI
	MOVSS f+56(FP), X7
	XORPS X0, X0
	XORPS X3, X3

pairs:
	CMPQ CX, $2
	JLT  tail
	BLOCK(0, X0)
	BLOCK(24, X0)
	ADDQ $48, SI
	SUBQ $2, CX
	HSUM(X0, X3, X4)
	UCOMISS X7, X3
	JHI  done
	JMP  pairs

tail:
	TESTQ CX, CX
	JZ    done
	BLOCK(0, X0)
	HSUM(X0, X3, X4)

done:
	MOVSS X3, ret+64(FP)
	RET

// SQ leaves in dst the squared differences of the block at SI+disp and
// its reference block (at DI + 16·off).
#define SQ(disp, dst) \
	MOVLQSX disp+16(SI), AX; \
	SHLQ    $4, AX; \
	MOVUPS  (DI)(AX*1), X1; \
	MOVUPS  disp(SI), dst; \
	SUBPS   X1, dst; \
	MULPS   dst, dst

// func boundPartsSSE(bs []tblock, st []stat4, base int, f float32, out []float32) float32
//
// Four blocks at a time: their squared differences transposed into their
// four parts, stored together, the total checked once per group.
TEXT ·boundPartsSSE(SB), NOSPLIT, $0-92
	MOVQ  bs_base+0(FP), SI
	MOVQ  bs_len+8(FP), CX
	MOVQ  st_base+24(FP), DI
	MOVQ  base+48(FP), DX
	SHLQ  $4, DX
	ADDQ  DX, DI
	MOVSS f+56(FP), X7
	MOVQ  out_base+64(FP), R8
	XORPS X5, X5             // the four lanes of the running total

quads:
	CMPQ CX, $4
	JLT  ptail
	SQ(0, X8)
	SQ(24, X9)
	SQ(48, X10)
	SQ(72, X11)
	// X8…X11 = a, b, c, d (lanes 0…3). Parts: Σa, Σb, Σc, Σd.
	MOVAPS   X8, X12
	UNPCKLPS X9, X12         // a0 b0 a1 b1
	UNPCKHPS X9, X8          // a2 b2 a3 b3
	ADDPS    X8, X12         // a02 b02 a13 b13
	MOVAPS   X10, X13
	UNPCKLPS X11, X13        // c0 d0 c1 d1
	UNPCKHPS X11, X10        // c2 d2 c3 d3
	ADDPS    X10, X13        // c02 d02 c13 d13
	MOVAPS   X12, X14
	MOVLHPS  X13, X14        // a02 b02 c02 d02
	MOVHLPS  X12, X13        // a13 b13 c13 d13
	ADDPS    X13, X14        // Σa Σb Σc Σd
	MOVUPS   X14, (R8)
	ADDPS    X14, X5
	ADDQ     $96, SI
	ADDQ     $16, R8
	SUBQ     $4, CX
	HSUM(X5, X3, X4)
	UCOMISS  X7, X3
	JHI      pdone
	JMP      quads

ptail:
	HSUM(X5, X3, X4)

pone:
	TESTQ CX, CX
	JZ    pdone
	SQ(0, X0)
	HSUM(X0, X2, X4)
	MOVSS X2, (R8)
	ADDSS X2, X3
	ADDQ  $24, SI
	ADDQ  $4, R8
	DECQ  CX
	UCOMISS X7, X3
	JHI   pdone
	JMP   pone

pdone:
	MOVSS X3, ret+88(FP)
	RET

// func rowsSSDSSE(a, b []int16, n, astride, bstride, rows int) int64
TEXT ·rowsSSDSSE(SB), NOSPLIT, $0-88
	MOVQ a_base+0(FP), SI
	MOVQ b_base+24(FP), DI
	MOVQ n+48(FP), R8
	MOVQ astride+56(FP), R9
	MOVQ bstride+64(FP), R10
	MOVQ rows+72(FP), R11
	SHLQ $1, R9
	SHLQ $1, R10
	XORQ R12, R12            // the total

row:
	PXOR X0, X0
	XORQ CX, CX              // byte offset in the row
	MOVQ R8, DX
	SHRQ $3, DX              // full vectors of 8

vec:
	TESTQ  DX, DX
	JZ     rest
	MOVOU  (SI)(CX*1), X1
	MOVOU  (DI)(CX*1), X2
	PSUBW  X2, X1
	PMADDWL X1, X1
	PADDL  X1, X0
	ADDQ   $16, CX
	DECQ   DX
	JMP    vec

rest:
	// Lane sum of X0 into BX.
	PSHUFD $0x4e, X0, X1
	PADDL  X1, X0
	PSHUFD $0xb1, X0, X1
	PADDL  X1, X0
	MOVL   X0, BX
	MOVQ   R8, DX
	ANDQ   $7, DX

scalar:
	TESTQ   DX, DX
	JZ      endrow
	MOVWLSX (SI)(CX*1), AX
	MOVWLSX (DI)(CX*1), R13
	SUBL    R13, AX
	IMULL   AX, AX
	ADDL    AX, BX
	ADDQ    $2, CX
	DECQ    DX
	JMP     scalar

endrow:
	MOVLQSX BX, BX
	ADDQ    BX, R12
	ADDQ    R9, SI
	ADDQ    R10, DI
	DECQ    R11
	JNZ     row
	MOVQ    R12, ret+80(FP)
	RET

// func scanRowSSE(st []stat4, c0, n, off0 int, t0 *stat4, mid []tblock, f float32, out []int32) int
TEXT ·scanRowSSE(SB), NOSPLIT, $0-120
	MOVQ   st_base+0(FP), DI
	MOVQ   c0+24(FP), AX
	SHLQ   $4, AX
	ADDQ   AX, DI            // DI = &st[c0]: the candidate's corner position
	MOVQ   n+32(FP), R10
	MOVQ   off0+40(FP), R13
	SHLQ   $4, R13
	MOVQ   t0+48(FP), AX
	MOVUPS (AX), X6
	MOVQ   mid_base+56(FP), R11
	MOVQ   mid_len+64(FP), R12
	MOVSS  f+80(FP), X7
	MOVQ   out_base+88(FP), R8
	XORQ   DX, DX            // k
	XORQ   R9, R9            // count

cand:
	CMPQ   DX, R10
	JGE    cdone
	// First level.
	MOVUPS (DI)(R13*1), X1
	MOVAPS X6, X2
	SUBPS  X1, X2
	MULPS  X2, X2
	HSUM(X2, X3, X4)
	UCOMISS X7, X3
	JHI    next
	// Second level, two blocks at a time.
	MOVQ   R11, SI
	MOVQ   R12, CX
	XORPS  X0, X0

mtriples:
	CMPQ CX, $3
	JLT  mtail
	BLOCK(0, X0)
	BLOCK(24, X0)
	BLOCK(48, X0)
	ADDQ $72, SI
	SUBQ $3, CX
	HSUM(X0, X3, X4)
	UCOMISS X7, X3
	JHI  next
	JMP  mtriples

mtail:
	TESTQ CX, CX
	JZ    mcheck
	BLOCK(0, X0)
	ADDQ  $24, SI
	DECQ  CX
	JMP   mtail

mcheck:
	HSUM(X0, X3, X4)
	UCOMISS X7, X3
	JHI   next

keep:
	MOVL DX, (R8)(R9*4)
	INCQ R9

next:
	ADDQ $16, DI
	INCQ DX
	JMP  cand

cdone:
	MOVQ R9, ret+112(FP)
	RET
