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
//     huge page then costs the host's work of backing 2 MiB, while small
//     pages keep coming from memory that is still backed. Where a small
//     fault is cheap (with the hardware's nested paging), 512 of them cost
//     less than that: small pages win. Where it is dear (where the
//     hypervisor shadows the guest's page tables), 512 of them cost more:
//     huge pages still win.
//
// So huge pages are used unless the guest reports free pages and a small
// page fault costs less than dearSmallFault.

// dearSmallFault is the cost of one small page fault above which huge pages
// pay even when fresh huge pages are slow (see above): 512 faults of it
// match the dearest fresh huge page measured on the guests gobtf was tuned
// on (docs/performance.md).
const dearSmallFault = 16 * time.Microsecond

// decideHuge applies the rule above to whether the guest reports free pages
// and the measured cost of one small page fault.
func decideHuge(reporting bool, smallFault time.Duration) bool {
	return !reporting || smallFault >= dearSmallFault
}
