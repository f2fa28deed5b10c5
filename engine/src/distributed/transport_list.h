/* The transports (transport.h): one line each. Included by transport.c to declare each table and to list
 * them; a transport's file is transports/<symbol>.c (every file there is built; one that needs a library
 * compiles to nothing without it, as its line here is left out). Order matters: the first device transport
 * that serves a backend is the one mpi.gpu_transport auto / device take for it.
 *
 *   UM_TRANSPORT(symbol)     its um_transport_def is um_transport_<symbol>
 */
#ifdef UM_HAVE_MPI /* (every transport moves messages between the ranks of a distributed run) */
#ifdef UM_HAVE_NCCL
UM_TRANSPORT(nccl)
#endif
UM_TRANSPORT(loopback)
#endif
