package hugemem

import "time"

// Whether to ask for huge pages at all is decided once per process, on the
// machine's behaviour, because the same advice that saves a third of a run
// on one virtual machine costs a tenth on another:
//
//   - On bare metal, and on virtual machines whose host keeps the guest's
//     memory backed, a fresh 2 MiB page costs about as much as zeroing it,
//     less than the 512 small faults it replaces, and the program then runs
//     with fewer TLB misses. Huge pages win.
//   - A guest with free page reporting (a virtio balloon that reports free
//     memory) hands its free memory back to the host, which must back it
//     again at the next touch. Free memory the guest merges into 2 MiB
//     blocks is what it reports, and what a huge page is made of; a fresh
//     huge page then took 4 to 8 ms on the machines measured (0.4 to 0.9 s
//     for 256 MB), while small pages kept coming from memory that was still
//     backed. Where a small fault is cheap (about 2.5 us with the hardware's
//     nested paging), 512 of them cost about 1.3 ms per 2 MiB: small pages
//     win. Where it is dear (about 19 us where the hypervisor shadows the
//     guest's page tables), 512 of them cost 10 ms: huge pages still win.
//
// So huge pages are used unless the guest reports free pages and a small
// page fault costs less than dearSmallFault.

// dearSmallFault is the cost of one small page fault above which huge pages
// pay even when fresh huge pages are slow (see above): 512 faults of it
// match the dearest fresh huge page measured, 8 ms.
const dearSmallFault = 16 * time.Microsecond

// decideHuge applies the rule above to whether the guest reports free pages
// and the measured cost of one small page fault.
func decideHuge(reporting bool, smallFault time.Duration) bool {
	return !reporting || smallFault >= dearSmallFault
}
