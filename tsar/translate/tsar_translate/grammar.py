# SPDX-License-Identifier: BSD-3-Clause
"""The directive grammar, as --help prints it (docs/man/tsar-translate.1 says the same)."""

GRAMMAR = """\
directives:
  #pragma tsar hetero(DEVICES[, SCHEDULE[, DIV]]) [CLAUSE[[,] CLAUSE]...]
      right before (or right after) a combined OpenMP target loop construct:
      #pragma omp target [teams distribute] [parallel for] [simd] [CLAUSES]
      for (TYPE i = LOWER; i < UPPER; ++i) BODY
  #pragma tsar data map([MAP-TYPE:] VAR[0:ROWS][0:COLS]...[, ...]) [map(...)]...
      before a block { ... }: a data environment for the loops in the block; VAR stays on
      the devices from one loop to the next, coherent per row (tsar/data.h). At the block's
      entry the devices' copies are dropped (the host's values count); at its exit the rows
      devices wrote come back for from and tofrom (to: the host keeps its values). Rows as
      in part_map: ROWS of COLS elements for a pointer (VAR[0:n] for a vector), or the
      array type's. The block's loops register VAR with this shape; one that uses VAR
      without naming it reads it whole (map(to:)). The block may not be left by return,
      goto, break or continue.
  #pragma tsar update to(VAR[, ...]) from(VAR[, ...])
      a statement in a data block: from brings the rows devices wrote back to the host (before
      the program reads VAR there), to drops the devices' copies (after it wrote VAR there)
  #pragma tsar depersist(VAR[, VAR]...)
      a statement: the loops of this file forget VAR (persist), freeing its device copies

  DEVICES    all | cpu | accel | gpu   (gpu = accel: OpenMP target devices)
  SCHEDULE   runtime (TSAR_SCHEDULE, else adaptive) | static | adaptive | split | quick |
             chunk | chunk-static | chunk-dynamic | hybrid | hguided, optionally :SIZE
             (split:10, chunk:64); also as a string ("chunk-dynamic:32")
  DIV        sub-passes of split and quick (an integer constant)

clauses:
  part_map([MAP-TYPE:] VAR[i+OFFSET:LENGTH][0:COLS]...[, ...])
      iteration i uses rows i+OFFSET .. i+OFFSET+LENGTH-1 of VAR (OFFSET, LENGTH integer
      constants; [i:1] is row i, [i-1:3] rows i-1..i+1, a halo of one row). The rows are
      the first dimension: of VAR's array type (double a[N][M], double (*a)[M]), or, for a
      pointer indexed a[i * COLS + j], rows of the COLS elements the later sections give.
      How many rows VAR has comes from the construct's map of VAR (or VAR's array type).
      MAP-TYPE: to (read), from (written whole, as OpenMP's map(from:) assumes: elements the
      loop does not write are undefined), tofrom (read and written; the default). What the
      loop writes must be [i:1]: each row is written by the device that runs iteration i.
  map([to:] VAR[0:LENGTH]...[, ...])
      every iteration may read all of VAR: each device gets a whole copy (inputs only)
  persist(VAR[, VAR]...)
      VAR (in a part_map or map) stays on the devices between executions of the loop; the
      program must not change it on the host until depersist(VAR)
  if(EXPR)
      co-schedule only when EXPR is true; otherwise the loop runs as written
  name("NAME")
      the region's name in TSAR_CACHE and TSAR_TRACE (default "FILE:LINE")

the OpenMP construct:
  map items of mapped arrays are replaced by TSAR's device pointers (is_device_ptr); other
  clauses (reduction, collapse, private, num_teams, ...) are kept; reduction(+,-,*,&,|,^,
  &&,||,min,max: scalars) are also registered with TSAR and combined over the devices;
  device() is TSAR's choice; if(target: EXPR) false runs the loop as written; nowait,
  depend, lastprivate, is_device_ptr, has_device_addr, in_reduction and ordered are refused.

what the loop may do:
  index a part_map array with the loop variable (a[i], a[i * COLS + j], a[(i - 1) * COLS +
  j], a[i][j], a + i * COLS) within the rows its part_map names; not write map(to:) arrays;
  not use an array or pointer that no clause maps; not change i. Each refusal names the
  file, line and column, and why.

translated code:
  CPU cores (and host-memory devices) run the loop body as written over their ranges (a team
  of cores, team:N-M, shares its range with a parallel for and the construct's private,
  firstprivate, reduction, collapse and schedule clauses); each
  OpenMP target device runs the construct as written over its range, on TSAR's copies of
  the arrays. Built without TSAR, the directives are unknown pragmas and the program runs
  as written. If TSAR cannot run a loop (no device, arrays that overlap), it runs as
  written and says why once on stderr.
"""
