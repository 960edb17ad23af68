# SPDX-License-Identifier: GPL-3.0-or-later
# Safe output files (engine/include/attnscope/fileio.h): symlinks, FIFOs, devices, read-only folders, /dev/full,
# multi-file commits. Label engine.
attn_add_qt_test(tst_files LABELS engine LIBS attn_engine)
