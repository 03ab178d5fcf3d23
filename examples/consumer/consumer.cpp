// consumer.cpp — a C++ program using the installed eir library through CMake
// (find_package(eir), target eir::eir; see CMakeLists.txt). Same job as
// consumer.c: load a .pt2, run it on float32 inputs filled with
// ((q * 37) % 17) / 8 - 1, print every output with 6 significant digits.
#include <eir.h>

#include <cstdint>
#include <iostream>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

namespace {

struct ProgramDeleter {
    void operator()(eir_program *p) const { eir_program_free(p); }
};
struct RuntimeDeleter {
    void operator()(eir_runtime *rt) const { eir_runtime_free(rt); }
};
using Program = std::unique_ptr<eir_program, ProgramDeleter>;
using Runtime = std::unique_ptr<eir_runtime, RuntimeDeleter>;

Program load(const char *path) {
    eir_program *p = nullptr;
    eir_status st = eir_program_load(path, &p);
    Program owned(p);
    if (st != EIR_OK) throw std::runtime_error(eir_errmsg(p));
    return owned;
}

Runtime make_runtime(eir_program *p) {
    eir_runtime *rt = nullptr;
    eir_status st = eir_runtime_create(p, &rt);
    Runtime owned(rt);
    if (st != EIR_OK) throw std::runtime_error(rt ? eir_runtime_errmsg(rt) : "out of memory");
    return owned;
}

void check(eir_runtime *rt, eir_status st) {
    if (st != EIR_OK) throw std::runtime_error(eir_runtime_errmsg(rt));
}

std::string shape(uint32_t rank, const int64_t *sizes) {
    std::string s = "[";
    for (uint32_t d = 0; d < rank; d++) s += (d ? ", " : "") + std::to_string(sizes[d]);
    return s + "]";
}

}  // namespace

int main(int argc, char **argv) {
    if (argc != 2) {
        std::cerr << "usage: " << argv[0] << " MODEL.pt2\n";
        return 2;
    }
    try {
        Program p = load(argv[1]);
        Runtime rt = make_runtime(p.get());
        std::cout << "eir " << eir_version() << "\n";
        std::vector<std::vector<float>> inputs(eir_runtime_num_inputs(rt.get()));
        for (uint32_t i = 0; i < inputs.size(); i++) {
            eir_io_info info;
            check(rt.get(), eir_runtime_input_info(rt.get(), i, &info));
            if (!info.is_tensor || info.dtype != EIR_F32)
                throw std::runtime_error("input '" + std::string(info.name) + "' is not a float32 tensor");
            int64_t n = 1;
            for (uint32_t d = 0; d < info.rank; d++) {
                if (info.sizes[d] < 0)
                    throw std::runtime_error("input '" + std::string(info.name) + "' has a symbolic size");
                n *= info.sizes[d];
            }
            std::cout << "input " << i << " '" << info.name << "': f32" << shape(info.rank, info.sizes) << "\n";
            inputs[i].resize(static_cast<size_t>(n));
            for (int64_t q = 0; q < n; q++) inputs[i][q] = static_cast<float>((q * 37) % 17) / 8.0f - 1.0f;
            eir_tensor_view v = {inputs[i].data(), EIR_F32, info.rank, info.sizes, nullptr};
            check(rt.get(), eir_runtime_set_input(rt.get(), i, &v));
        }
        check(rt.get(), eir_runtime_run(rt.get()));
        for (uint32_t i = 0; i < eir_runtime_num_outputs(rt.get()); i++) {
            eir_io_info info;
            eir_tensor_view y;
            check(rt.get(), eir_runtime_output_info(rt.get(), i, &info));
            check(rt.get(), eir_runtime_output(rt.get(), i, &y));
            if (y.dtype != EIR_F32 || !eir_tensor_is_contiguous(&y))
                throw std::runtime_error("output " + std::to_string(i) + " is not a contiguous float32 tensor");
            std::cout << "output " << i << " '" << info.name << "': " << eir_dtype_abbr(y.dtype)
                      << shape(y.rank, y.sizes) << " =";
            const float *f = static_cast<const float *>(y.data);
            for (int64_t q = 0; q < eir_tensor_numel(&y); q++) std::cout << " " << f[q];
            std::cout << "\n";
        }
    } catch (const std::exception &e) {
        std::cerr << "consumer: " << e.what() << "\n";
        return 1;
    }
    return 0;
}
