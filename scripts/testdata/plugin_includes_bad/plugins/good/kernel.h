// The header of kernel.cc.
