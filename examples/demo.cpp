#include <cstdio>
int main() { std::puts("adreno demo: under construction"); return 0; }
