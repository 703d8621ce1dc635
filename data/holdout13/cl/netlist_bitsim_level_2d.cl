/* Bit-parallel logic simulation of one level of a levelized gate netlist, with a single stuck-at fault injected
 * (parallel-pattern single-fault simulation). Every node's value is nword uint32 words, 32 test patterns a word:
 * node n's word w is val[n * nword + w]. Gate i of the level computes node level_node[i] from its fan-in nodes
 * fanin_node[fanin_start[i]] .. by its type: 0 BUF, 1 NOT, 2 AND, 3 NAND, 4 OR, 5 NOR, 6 XOR, 7 XNOR over any
 * number of inputs (the odd codes invert), and 8 MUX2 with inputs (select, a, b). The level's gate fault_gate
 * is stuck at stuck_val in every pattern. A 2-D NDRange: x over pattern words, y over the level's gates. */
#define T_MUX2 8

__kernel void netlist_bitsim_level_2d(const int nword, const int ngate,
                                      const int fault_gate, const int stuck_val,
                                      __global const int *level_node,
                                      __global const int *gate_type,
                                      __global const int *fanin_start,
                                      __global const int *fanin_node,
                                      __global uint *val)
{
    const int w = get_global_id(0);
    const int i = get_global_id(1);
    if (w >= nword || i >= ngate)
        return;

    const int t = gate_type[i];
    const int p0 = fanin_start[i];
    const int p1 = fanin_start[i + 1];
    uint v;
    if (t == T_MUX2) {
        const uint s = val[(size_t)fanin_node[p0] * nword + w];
        const uint a = val[(size_t)fanin_node[p0 + 1] * nword + w];
        const uint b = val[(size_t)fanin_node[p0 + 2] * nword + w];
        v = (a & ~s) | (b & s);
    } else {
        const int op = t >> 1;
        v = val[(size_t)fanin_node[p0] * nword + w];
        for (int p = p0 + 1; p < p1; p++) {
            const uint u = val[(size_t)fanin_node[p] * nword + w];
            if (op == 1)
                v &= u;
            else if (op == 2)
                v |= u;
            else
                v ^= u;
        }
        if (t & 1)
            v = ~v;
    }
    if (i == fault_gate)
        v = stuck_val ? 0xffffffffu : 0u;
    val[(size_t)level_node[i] * nword + w] = v;
}
