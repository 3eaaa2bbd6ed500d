/**
 * A seccomp program, in the classic BPF form bubblewrap's `--seccomp FD` loads, that refuses the
 * confined process (and every process it starts) a new Unix socket: `socket(AF_UNIX, …)` fails
 * with EPERM. A machine's services listen on socket files a read-only view of the machine still
 * shows (a container engine's, an SSH agent's, a session bus): connecting needs no write, and no
 * network rule covers them. Socket pairs (`socketpair`), which programs use between their own
 * processes, stay allowed. Claude Code's sandbox refuses its shell commands the same.
 */

const BPF_LD_W_ABS = 0x20;
const BPF_JEQ_K = 0x15;
const BPF_JGE_K = 0x35;
const BPF_RET_K = 0x06;

/** Offsets in the kernel's `struct seccomp_data`: the call's number, the architecture, the first argument's low half. */
const NR = 0;
const ARCH = 4;
const FIRST_ARGUMENT = 16;

const RET_ALLOW = 0x7fff0000;
const RET_EPERM = 0x00050000 | 1;
const RET_KILL_PROCESS = 0x80000000;
const AF_UNIX = 1;
/** x86-64's x32 calls carry this bit in their number. */
const X32_BIT = 0x40000000;

/** The architectures known here: their audit value and the number of `socket`. */
const ARCHITECTURES: Record<string, { audit: number; socket: number; x32?: boolean }> = {
  x64: { audit: 0xc000003e, socket: 41, x32: true },
  arm64: { audit: 0xc00000b7, socket: 198 },
};

type Instruction = [code: number, jumpIfTrue: number, jumpIfFalse: number, k: number];

/** Whether there is a program for `arch` (Node's name): what get_status reports, without building it. */
export function hasUnixSocketFilter(arch: string = process.arch): boolean {
  return Object.hasOwn(ARCHITECTURES, arch);
}

/**
 * The program for `arch` (Node's name, `process.arch`), or null for an architecture it does not
 * know. A call of another architecture kills the process: a 32-bit program would reach sockets
 * through `socketcall`, whose arguments a filter cannot read. So does an x32 call.
 */
export function unixSocketFilter(arch: string = process.arch): Buffer | null {
  if (!hasUnixSocketFilter(arch)) return null;
  const known = ARCHITECTURES[arch];
  // A jump counts the instructions it skips. From the call's number on: anything but socket() is
  // allowed, socket(AF_UNIX, …) refused, and the last instruction kills.
  const socketCheck: Instruction[] = [
    [BPF_JEQ_K, 0, 2, known.socket],
    [BPF_LD_W_ABS, 0, 0, FIRST_ARGUMENT],
    [BPF_JEQ_K, 1, 0, AF_UNIX],
    [BPF_RET_K, 0, 0, RET_ALLOW],
    [BPF_RET_K, 0, 0, RET_EPERM],
    [BPF_RET_K, 0, 0, RET_KILL_PROCESS],
  ];
  // An x32 call, and before it a call of another architecture, jump to the last instruction.
  const x32Check: Instruction[] = known.x32 ? [[BPF_JGE_K, socketCheck.length - 1, 0, X32_BIT]] : [];
  const afterArch: Instruction[] = [[BPF_LD_W_ABS, 0, 0, NR], ...x32Check, ...socketCheck];
  const program: Instruction[] = [[BPF_LD_W_ABS, 0, 0, ARCH], [BPF_JEQ_K, 0, afterArch.length - 1, known.audit], ...afterArch];
  // struct sock_filter { u16 code; u8 jt; u8 jf; u32 k; }, in the machine's byte order (both little-endian).
  const bytes = Buffer.alloc(program.length * 8);
  program.forEach(([code, jumpIfTrue, jumpIfFalse, k], i) => {
    bytes.writeUInt16LE(code, i * 8);
    bytes.writeUInt8(jumpIfTrue, i * 8 + 2);
    bytes.writeUInt8(jumpIfFalse, i * 8 + 3);
    bytes.writeUInt32LE(k >>> 0, i * 8 + 4);
  });
  return bytes;
}
