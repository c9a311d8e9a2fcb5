/* A library whose RUNPATH holds every kind of unsafe entry, for check_runpath.py's own test. */
int tessera_runpath_fixture(void) { return 0; }
