"""profguide.analysis.families: kernels named by family, and communication beyond NCCL."""

import re

import numpy as np
import pytest

from profguide import patterns, trace
from profguide.analysis import communication, families
from profguide.analysis.families import family_breakdown, family_sentence, kernel_family
from profguide.trace.model import KIND
from tests.helpers import TRACES
from tests.helpers import gpu_event as gpu
from tests.helpers import make_trace as make

# Names copied from the traces in docs/traces, from public H100 and MI300X traces of BERT and Qwen, and from the
# tables of the Hugging Face posts "Profiling in PyTorch" (torch-mlp-fusion.md, torch-attention-profile.md); a few
# cut short where they run to thousands of characters. Each with what its name says: (name, {field: value}).
DECODED = [
    ("ampere_sgemm_128x64_nn",
     {"family": "gemm", "library": "cuBLAS", "precision": "fp32", "tensor_cores": False}),
    ("sm90_xmma_gemm_bf16bf16_bf16f32_f32_tn_n_tilesize128x128x64_warpgroupsize1x1x1_execute_segment_k_off_kernel"
     "__5x_cublas", {"family": "gemm", "library": "cuBLASLt", "precision": "bf16", "tensor_cores": True}),
    ("void cutlass::Kernel<cutlass_80_tensorop_s1688gemm_64x64_16x6_nn_align4>(cutlass_80_tensorop_s1688gemm_64x64_"
     "16x6_nn_align4::Params)", {"family": "gemm", "library": "CUTLASS", "precision": "tf32", "tensor_cores": True}),
    ("cutlass_80_wmma_tensorop_bf16_s161616gemm_bf16_32x32_32x1_tn_align8",
     {"family": "gemm", "library": "CUTLASS", "precision": "bf16", "tensor_cores": True}),
    ("ampere_bf16_s16816gemm_bf16_128x128_", {"family": "gemm", "precision": "bf16", "tensor_cores": True}),
    ("void cutlass::Kernel<cutlass_70_wmma_tensorop_f16_s161616gemm_f16_32x32_64x2_tn_align8>(cutlass_70_wmma_"
     "tensorop_f16_s161616gemm_f16_32x32_64x2_tn_align8::Params)", {"precision": "fp16", "tensor_cores": True}),
    ("void cutlass::Kernel<cutlass_80_simt_sgemm_128x32_8x5_nn_align1>(cutlass_80_simt_sgemm_128x32_8x5_nn_align1::"
     "Params)", {"family": "gemm", "precision": "fp32", "tensor_cores": False}),
    # A GEMM on single-precision complex numbers (BLAS's cgemm), which cuDNN's FFT convolution in the A100 AlexNet
    # trace runs between its forward and inverse transforms.
    ("ampere_gcgemm_64x64_nt", {"family": "gemm", "library": "cuBLAS", "precision": "complex fp32"}),
    ("void gemv2T_kernel_val<int, int, float, float, float, float, 128, 16, 2, 2, false, false, cublasGemvParams<"
     "cublasGemvTensorStridedBatched<float const>", {"family": "gemm", "library": "cuBLAS", "kind": "gemv",
                                                    "tensor_cores": False}),
    ("void splitKreduce_kernel<float, float, float, float, true, false, false>(cublasSplitKParams<float>, float "
     "const*, float const*, float*", {"family": "gemm", "library": "cuBLAS"}),
    ("Cijk_Alik_Bljk_B_BS_BH_Bias_HA_S_SAV_UserArgs_MT128x144x64_MI16x16x1_SN_LDSB1_AFC1_AFEM1_AFEM1_ASEM1_CLR1",
     {"family": "gemm", "library": "hipBLASLt/Tensile", "precision": "bf16", "tensor_cores": True}),
    ("Cijk_Ailk_Bjlk_SB_Bias_AS_SAV_UserArgs_MT64x16x16_MI16x16x1_SN_LDSB0_AFC1_AFEM1_AFEM1_ASEM1_CLR1_CADS0",
     {"family": "gemm", "library": "hipBLASLt/Tensile", "precision": "fp32", "tensor_cores": True}),
    # Kernels a BLAS or convolution library runs beside its multiplies, multiplying no matrices: cuBLAS's BLAS-1 scal
    # (in an A100 trace, inside an addmm, before its sgemm_largek kernel), cuBLASLt's epilogue as a kernel of its own
    # (there, after an sgemm of an addmm with a bias), cuDNN's scaling of a tensor (inside a convolution's backward).
    ("void scal_kernel<float, float, 1, false, 6, 5, 5, 3>(cublasTransposeParams<float>, float const*, float*, "
     "float const*)", {"family": "elementwise", "library": "cuBLAS", "precision": None, "tensor_cores": None}),
    ("void epilogue::impl::globalKernel<float, float, float, true, true>(int, int, long, float*, cublasLtEpilogue_t, "
     "int, float*, long, void*, long, long, long, float*, long, int*)",
     {"family": "elementwise", "library": "cuBLASLt", "precision": None}),
    ("void cudnn::ops::scalePackedTensor_kernel<float, float>(long, float*, float)",
     {"family": "elementwise", "library": "cuDNN"}),
    # The sum that finishes a weight gradient cuDNN computed in pieces is part of the convolution's backward.
    ("void cudnn::cnn::reduce_wgrad_nchw_helper<float, float>(void*, void const*, float, int, int)",
     {"family": "convolution", "library": "cuDNN", "kind": "wgrad", "tensor_cores": None}),
    # A kernel whose only "cutlass" is a CUTLASS number type is no GEMM (a mixture of experts' finalize step).
    ("void moe::dev::finalize::finalizeKernelVecLoad<moe::dev::finalize::KernelParams<cutlass::bfloat16_t, cutlass::"
     "bfloat16_t, 4, true> >(moe::dev::finalize::KernelParams<cutlass::bfloat16_t, cutlass::bfloat16_t, 4, true>)",
     {"family": "other"}),
    # fbgemm_gpu's kernels are embedding bags and permutations, not matrix multiplies.
    ("void fbgemm_gpu::permute_2D_lengths_kernel<int>(int, int, int const*, int const*, int*)", {"family": "other"}),
    ("sm80_xmma_fprop_implicit_gemm_indexed_tf32f32_tf32f32_f32_nhwckrsc_nchw_tilesize128x128x16_stage4_warpsize2x2x1"
     "_g1_tensor16x8x8_alignc4_execute_kernel_cudnn", {"family": "convolution", "library": "cuDNN",
                                                      "precision": "tf32", "tensor_cores": True, "kind": "fprop"}),
    ("void cutlass_cudnn_train::Kernel<cutlass_tensorop_s1688wgrad_optimized_tf32_256x64_16x4_nhwc_align4>(",
     {"family": "convolution", "library": "cuDNN", "precision": "tf32", "tensor_cores": True, "kind": "wgrad"}),
    ("cudnn_infer_ampere_scudnn_128x64_relu_xregs_large_nn_v1",
     {"family": "convolution", "library": "cuDNN", "precision": "fp32", "tensor_cores": False}),
    ("void pytorch_flash::flash_fwd_kernel<pytorch_flash::Flash_fwd_kernel_traits<64, 128, 128, 4, false, false, "
     "cutlass::bfloat16_t, pytorch_flash::Flash_kernel_traits<64, 128, 128, 4, cutlass::bfloat16_t> >, false, ",
     {"family": "attention", "backend": "flash", "precision": "bf16", "tensor_cores": True}),
    ("fmha_cutlassF_bf16_aligned_64x64_rf_sm80",
     {"family": "attention", "backend": "memory-efficient", "precision": "bf16", "tensor_cores": True}),
    # The Hugging Face post's cuDNN kernel, from a bf16 run: cuDNN writes f16 for either 16-bit type.
    ("cudnn_generated_fort_native_sdpa_sm80_flash_fprop_wmma_f16_knob_6_128x64x64_4x1x1_cga1x1x1_kernel0_0",
     {"family": "attention", "backend": "cuDNN", "precision": None, "tensor_cores": True}),
    ("attn_fwd", {"family": "attention", "backend": "Triton"}),
    # TensorRT-LLM's generated kernels in vLLM on a B200: attention, and the mixture of experts' GEMMs of FP4 weights
    # (MxE2m1) and FP8 activations (MxE4m3), whose output is FP8 for the first and bf16 for the second. FP8 and FP4
    # run on tensor cores only, whether or not the name says an instruction.
    ("fmhaSm100aKernel_QkvE4m3OBfloat16H64PagedKvCausalP16VarSeqQ128Kv128PersistentContext",
     {"family": "attention", "backend": "trtllm-gen", "precision": "fp8", "tensor_cores": True}),
    ("bmm_MxE4m3_MxE2m1MxE4m3_Fp32_t128x16x256u2_s3_et128x16_m128x16x32_cga1x1x1_16dp256b_rM_TN_transOut_schedP2x1x2"
     "x3_biasM_bN_tma_tmaOpt_clmp_swiGlu_dynBatch_sm100f",
     {"family": "gemm", "library": "trtllm-gen", "precision": "fp4", "tensor_cores": True}),
    ("bmm_Bfloat16_MxE2m1MxE4m3_Fp32_t128x16x256u2_s3_et128x16_m128x16x32_cga1x1x1_16dp256b_rM_TN_transOut_schedP2x1"
     "x2x3_biasM_bN_tmaOpt_clmp_dynBatch_sm100f",
     {"family": "gemm", "library": "trtllm-gen", "precision": "fp4", "tensor_cores": True}),
    # CUTLASS's grouped GEMMs for mixture-of-experts (vLLM's cutlass_moe_mm, FlashInfer's): FP8 on Hopper, whose
    # mainloop names GMMA, and block-scaled FP4 and bf16 on Blackwell, whose mainloop names UMMA.
    ("void cutlass::device_kernel<cutlass::gemm::kernel::GemmUniversal<cutlass::gemm::GroupProblemShape<cute::tuple<"
     "int, int, int> >, cutlass::gemm::collective::CollectiveMma<cutlass::gemm::MainloopSm90ArrayTmaGmmaWarpSpecialized"
     "<3, cute::tuple<cute::C<1>, cute::C<1>, cute::C<1> >, cutlass::gemm::KernelPtrArrayTmaWarpSpecializedCooperative"
     "FP8FastAccum>, cute::tuple<cute::C<128>, cute::C<128>, cute::C<128> >, cutlass::float_e4m3_t, cute::tuple<long, "
     "cute::C<1>, cute::C<0> >*, cutlass::float_e4m3_t, cute::tuple<long, cute::C<1>, cute::C<0> >*",
     {"family": "gemm", "library": "CUTLASS", "precision": "fp8", "tensor_cores": True}),
    ("void cutlass::device_kernel<cutlass::gemm::kernel::GemmUniversal<cutlass::gemm::GroupProblemShape<cute::tuple<"
     "int, int, int> >, cutlass::gemm::collective::CollectiveMma<cutlass::gemm::MainloopSm100ArrayTmaUmmaWarp"
     "SpecializedBlockScaled<4, 8, 2, cute::tuple<cute::C<1>, cute::C<1>, cute::C<1> > >, cute::tuple<cute::C<128>, "
     "cute::C<128>, cute::C<256> >, cute::tuple<cutlass::float_e2m1_t, cutlass::float_ue4m3_t>, cute::tuple<long, "
     "cute::C<1>, cute::C<0> >*", {"family": "gemm", "library": "CUTLASS", "precision": "fp4", "tensor_cores": True}),
    ("void cutlass::device_kernel<cutlass::gemm::kernel::GemmUniversal<cutlass::gemm::GroupProblemShape<cute::tuple<"
     "int, int, int> >, cutlass::gemm::collective::CollectiveMma<cutlass::gemm::MainloopSm100ArrayTmaUmmaWarp"
     "Specialized<4, cute::tuple<cute::C<1>, cute::C<1>, cute::C<1> > >, cute::tuple<cute::C<128>, cute::C<128>, "
     "cute::C<64> >, cutlass::bfloat16_t",
     {"family": "gemm", "library": "CUTLASS", "precision": "bf16", "tensor_cores": True}),
    # Triton's matmul_ogs in vLLM on an MI300X (gpt-oss's mixture of experts): bf16 activations times mxfp4 weights,
    # the lower of the two read as the precision, as trtllm-gen's; the MoE's finishing scatter is no GEMM.
    ("_matmul_ogs_NNT_bf16xbf16xmxfp4_128x128x128x1_swiglu",
     {"family": "gemm", "library": "Triton", "precision": "fp4", "tensor_cores": True, "split_k": None}),
    ("_matmul_ogs_NNT_bf16xbf16xmxfp4_128x128x128x1",
     {"family": "gemm", "library": "Triton", "precision": "fp4", "tensor_cores": True}),
    ("_matmul_NNT_bf16xbf16xbf16_64x64x64x1", {"family": "gemm", "library": "Triton", "precision": "bf16"}),
    ("_finalize_matmul_scatter_bf16", {"family": "other"}),
    ("triton_poi_fused__unsafe_view_gelu_mul_0", {"family": "triton", "library": "Triton", "kind": "pointwise"}),
    ("triton_red_fused_sum_0", {"family": "triton", "kind": "reduction"}),
    ("triton_per_fused_native_layer_norm_0", {"family": "triton", "kind": "persistent reduction"}),
    ("triton_tem_fused_mm_0", {"family": "gemm", "library": "Triton", "kind": "template"}),
    ("triton__0d1d2d3d", {"family": "triton", "kind": None}),
    ("void at::native::vectorized_elementwise_kernel<4, at::native::GeluCUDAKernelImpl(at::TensorIteratorBase&, "
     "at::native::GeluType)::{lambda()#2}::operator()() const", {"family": "elementwise"}),
    ("void at::native::elementwise_kernel_manual_unroll<128, 8, at::native::gpu_kernel_impl_nocast<at::native::"
     "CUDAFunctor_add<c10::BFloat16> >(at::TensorIteratorBase&", {"family": "elementwise"}),
    ("void at::native::unrolled_elementwise_kernel<at::native::direct_copy_kernel_cuda(at::TensorIteratorBase&)::"
     "{lambda()#2}::operator()() const", {"family": "copy"}),
    ("void at::native::(anonymous namespace)::CatArrayBatchedCopy<float, unsigned int, 1, 128, 1>(float*",
     {"family": "copy"}),
    ("Memcpy DtoD (Device -> Device)", {"family": "copy"}),
    ("void at::native::reduce_kernel<512, 1, at::native::ReduceOp<float, at::native::MeanOps<float, float, float, "
     "float>, unsigned int, float, 4> >(", {"family": "reduction"}),
    ("void (anonymous namespace)::softmax_warp_forward<float, float, float, 10, true, false>(float*, float const*",
     {"family": "reduction"}),
    ("void at::native::(anonymous namespace)::vectorized_layer_norm_kernel<c10::BFloat16, float>(int, float, ",
     {"family": "normalization"}),
    ("void cudnn::bn_fw_tr_1C11_kernel_NCHW<float, float, int, 128, true, 1, true>(cudnnTensorStruct, ",
     {"family": "normalization", "library": "cuDNN"}),
    ("ncclKernel_AllReduce_RING_LL_Sum_float(ncclDevComm*, unsigned long, ncclWork*)",
     {"family": "communication", "library": "NCCL", "kind": "all-reduce"}),
    ("at::cuda::(anonymous namespace)::spin_kernel(long)", {"family": "other"}),
]


@pytest.mark.parametrize(("name", "expected"), DECODED, ids=lambda item: item[:40] if isinstance(item, str) else "")
def test_a_kernel_name_decodes_to_what_it_says(name, expected):
    decoded = kernel_family(name)._asdict()
    assert {field: decoded[field] for field in expected} == expected


# What a name says of a matrix kernel's shape, of an Inductor kernel's ops and of ATen's loops: names from the
# traces in docs/traces (cut short), each with the fields it decodes to.
SHAPES = [
    ("ampere_sgemm_128x64_nn", {"layout": "nn", "tile": "128x64", "split_k": None}),
    ("ampere_sgemm_32x32_sliced1x4_tn", {"layout": "tn", "tile": "32x32_sliced1x4"}),
    ("ampere_sgemm_128x128_tt", {"layout": "tt", "tile": "128x128"}),
    ("volta_sgemm_128x32_nt", {"layout": "nt", "tile": "128x32", "tensor_cores": False}),
    ("ampere_gcgemm_64x64_nt", {"layout": "nt", "tile": "64x64"}),
    # CUTLASS: M×N of the thread block, then its K and the pipeline's stages.
    ("void cutlass::Kernel<cutlass_80_tensorop_s1688gemm_256x64_16x4_tt_align4>(cutlass_80_tensorop_s1688gemm_256x64_"
     "16x4_tt_align4::Params)", {"layout": "tt", "tile": "256x64x16", "precision": "tf32"}),
    ("void cutlass::Kernel2<cutlass_80_tensorop_bf16_s16816gemm_relu_bf16_64x64_64x6_tn_align8>(cutlass_80_tensorop_"
     "bf16_s16816gemm_relu_bf16_64x64_64x6_tn_align8::Params)",
     {"layout": "tn", "tile": "64x64x64", "precision": "bf16"}),
    ("void cutlass::Kernel<cutlass_80_simt_sgemm_128x32_8x5_nn_align1>(cutlass_80_simt_sgemm_128x32_8x5_nn_align1::"
     "Params)", {"layout": "nn", "tile": "128x32x8", "tensor_cores": False}),
    ("sm90_xmma_gemm_bf16bf16_bf16f32_f32_tn_n_tilesize64x64x64_warpgroupsize1x1x1_execute_segment_k_off_kernel__5x_"
     "cublas", {"layout": "tn", "tile": "64x64x64", "split_k": None}),
    # Tensile: Alik is A transposed, Bljk B as stored, Bjlk B transposed; MT the macro tile.
    ("Cijk_Alik_Bljk_B_BS_BH_Bias_HA_S_SAV_UserArgs_MT128x224x64_MI16x16x1_SN_LDSB1_AFC1_AFEM1_AFEM1_ASEM1_CLR1_CADS0",
     {"layout": "tn", "tile": "128x224x64", "precision": "bf16"}),
    ("Cijk_Ailk_Bjlk_SB_Bias_AS_SAV_UserArgs_MT64x16x16_MI16x16x1_SN_LDSB0_AFC1_AFEM1_AFEM1_ASEM1_CLR1_CADS0_EPS0_GR",
     {"layout": "nt", "tile": "64x16x16"}),
    ("Cijk_Ailk_Bljk_S_B_Bias_HA_S_SAV_UserArgs_MT16x16x128_MI16x16x1_SN_LDSB1_AFC1_AFEM1_AFEM1_ASEM1_CLR1_CADS0_DTV",
     {"layout": "nn", "tile": "16x16x128"}),
    # trtllm-gen: "t" the tile, M×N×K; no layout the decoder reads.
    ("bmm_Bfloat16_MxE2m1MxE4m3_Fp32_t128x16x256u2_s3_et128x16_m128x16x32_cga1x1x1_16dp256b_rM_TN_transOut_schedP2x1",
     {"family": "gemm", "tile": "128x16x256", "layout": None}),
    # matmul_ogs: BLOCK_M×N×K, then SPLIT_K; its layouts (of Y, X and W) are not BLAS's.
    ("_matmul_ogs_NNT_bf16xbf16xmxfp4_128x128x128x1_swiglu", {"tile": "128x128x128", "split_k": None, "layout": None}),
    ("_matmul_ogs_ptma_NTT_bf16xfp8e4nvxmxfp4_64x256x128x4", {"tile": "64x256x128", "split_k": True, "layout": None}),
    # Split-K: the GEMM that splits K, and the reduction that adds its parts.
    ("void cublasLt::splitKreduce_kernel<32, 16, int, float, float, float, float, true, false, false>(cublasLt::cubl",
     {"family": "gemm", "kind": "split-K reduction", "split_k": True, "layout": None, "tile": None}),
    ("cudnn_train_volta_scudnn_128x128_stridedB_splitK_interior_nn_v1",
     {"family": "convolution", "split_k": True, "tile": "128x128", "layout": None}),
    ("sm80_xmma_wgrad_implicit_gemm_indexed_tf32f32_tf32f32_f32_nhwckrsc_nhwc_tilesize128x128x16_stage4_warpsize2x2x1_g1_"
     "tensor16x8x8_execute_split_k_kernel_cudnn_train", {"kind": "wgrad", "split_k": True, "tile": "128x128x16"}),
    ("cudnn_infer_volta_scudnn_128x32_sliced1x4_ldg4_relu_exp_small_nhwc_tn_v1",
     {"family": "convolution", "tile": "128x32_sliced1x4", "layout": None}),
    ("triton_poi_fused_add_cos_sin_0", {"family": "triton", "kind": "pointwise", "fused": "add_cos_sin"}),
    ("triton_per_fused_native_layer_norm_0", {"kind": "persistent reduction", "fused": "native_layer_norm"}),
    ("triton__0d1d2d3d", {"family": "triton", "fused": None}),
    ("void at::native::vectorized_elementwise_kernel<8, at::native::CUDAFunctor_add<c10::BFloat16>, std::array<char*, "
     "3ul> >(int, at::native::CUDAFunctor_add<c10::BFloat16>, std::array<char*, 3ul>)",
     {"family": "elementwise", "kind": "vectorized"}),
    ("void at::native::unrolled_elementwise_kernel<at::native::FillFunctor<float>, at::detail::Array<char*, 1>, Trivi",
     {"family": "elementwise", "kind": "unrolled"}),
    ("void at::native::elementwise_kernel_manual_unroll<128, 8, at::native::gpu_kernel_impl_nocast<at::native::CUDAFun"
     "ctor_add<c10::BFloat16> >(at::TensorIteratorBase&", {"family": "elementwise", "kind": "strided"}),
    ("void at::native::elementwise_kernel<512, 1, at::native::gpu_kernel_impl<at::native::direct_copy_kernel_cuda(at::"
     "TensorIteratorBase&)::{lambda()#3}", {"family": "copy", "kind": "strided"}),
    ("void at::native::index_elementwise_kernel<128, 4, at::native::gpu_index_kernel<at::native::index_put_kernel_imp",
     {"family": "elementwise", "kind": None}),
]


@pytest.mark.parametrize(("name", "expected"), SHAPES, ids=lambda item: item[:40] if isinstance(item, str) else "")
def test_a_name_says_its_layout_tile_split_and_loop(name, expected):
    decoded = kernel_family(name)._asdict()
    assert {field: decoded[field] for field in expected} == expected


def distinct_kernel_names():
    """Every distinct kernel name of the real traces."""
    names = set()
    for path in sorted(TRACES.glob("*.json.gz")):
        loaded, mask = kernels(path)
        names |= {loaded.names[code] for code in np.unique(loaded.name[mask]).tolist()}
    return names


def test_every_gemm_of_the_real_traces_that_spells_a_layout_has_it_decoded():
    # The layouts as the names spell them, read here another way: CUTLASS's before "_align", cuBLAS's last letters,
    # Tensile's operand indices. Only GEMMs carry one; a convolution's "nn" is not its operands' layout.
    spelled = re.compile(r"_([nt]{2})_align\d|^(?:volta|ampere)_\w*gemm_\w+_([nt]{2})$")
    tensile = {"cijk_ailk_bljk": "nn", "cijk_ailk_bjlk": "nt", "cijk_alik_bljk": "tn", "cijk_alik_bjlk": "tt"}
    checked = 0
    for name in distinct_kernel_names():
        decoded, lowered = kernel_family(name), name.lower()
        found = spelled.search(lowered)
        expected = tensile.get(lowered[:14]) or (next(group for group in found.groups() if group) if found else None)
        if decoded.family == "gemm" and expected:
            assert decoded.layout == expected, name
            checked += 1
        if decoded.family != "gemm":
            assert decoded.layout is None, name
    assert checked > 50  # the A100 traces' CUTLASS and cuBLAS GEMMs and the MI250's and MI300X's Tensile ones


def test_only_matrix_kernels_have_a_tile_and_every_tile_is_in_the_name():
    for name in distinct_kernel_names():
        decoded = kernel_family(name)
        if decoded.tile is not None:
            assert decoded.family in ("gemm", "convolution"), name
            # M×N as the name writes it (CUTLASS then gives K after an underscore).
            dimensions = decoded.tile.split("_")[0].split("x")
            assert len(dimensions) in (2, 3) and "x".join(dimensions[:2]) in name.lower(), name


# The kernels of communication libraries other than NCCL, RCCL and gloo, as their sources name them.
OTHER_COMMUNICATION = [
    ("void deep_ep::intranode::dispatch<8, 768, 8192>(int4*, float*, int*, long*, float*, int*, int*)", "DeepEP",
     "dispatch"),
    ("void deep_ep::internode_ll::combine<false, 7168>(void*, int*, int*, void const*)", "DeepEP", "combine"),
    ("void c10d::nvshmem_extension::allToAllV(void*, long*, void*, long*, int, int, int)", "NVSHMEM", "all-to-all"),
    ("void vllm::cross_device_reduce_1stage<__nv_bfloat16, 8>(vllm::RankData*, vllm::RankSignals, vllm::Signal*, ",
     "custom all-reduce", "all-reduce"),
    ("_ZN5aiter26cross_device_reduce_2stageIDF16bLi8ELb0EEEv", "custom all-reduce", "all-reduce"),
    ("void tensorrt_llm::kernels::oneShotAllReduceKernel<__nv_bfloat16, 8>(tensorrt_llm::kernels::AllReduceParams)",
     "custom all-reduce", "all-reduce"),
    ("void tensorrt_llm::kernels::ar_fusion::allreduce_fusion_kernel_oneshot_lamport<__nv_bfloat16, 8>(",
     "custom all-reduce", "all-reduce"),
    ("void flashinfer::trtllm_mnnvl_allreduce::twoshotAllreduceKernel<(unsigned char)2, __nv_bfloat16, true>(",
     "custom all-reduce", "all-reduce"),
    ("void (anonymous namespace)::one_shot_all_reduce_kernel<float, 16, 8>(float**, float*, unsigned long, ",
     "custom all-reduce", "all-reduce"),
    ("void (anonymous namespace)::multimem_all_reduce_kernel<c10::BFloat16, 16>(c10::BFloat16*, unsigned long, ",
     "symmetric memory", "all-reduce"),
    ("mscclpp::executionKernel<__half>", "MSCCL", None),
    ("ucc_tl_cuda_reduce_scatter_linear", "UCC", "reduce-scatter"),
]


@pytest.mark.parametrize(("name", "library", "kind"), OTHER_COMMUNICATION, ids=lambda item: str(item)[:40])
def test_the_kernels_of_other_communication_libraries_are_communication(name, library, kind):
    assert patterns.COMMUNICATION.search(name)
    decoded = kernel_family(name)
    assert (decoded.family, decoded.library, decoded.kind) == ("communication", library, kind)


@pytest.mark.parametrize("name", ["cudaLaunchKernel", "aten::_local_scalar_dense", "Torch-Compiled Region: 0/0",
                                  "Command Buffer Full", "success", "void moe_permute_kernel<float>(float*)",
                                  "CompiledFunction", "void cub::DeviceReduceKernel<int>"])
def test_names_that_only_look_like_communication_are_not(name):
    # "ucc" is inside "success", "mpi" inside "compile"; MoE permutations move tokens within one GPU.
    assert not patterns.COMMUNICATION.search(name)


def all_names(path):
    """Every event and thread name of a trace: what COMMUNICATION is asked about."""
    loaded = trace.load(path)
    return set(loaded.names) | {str(name) for name in loaded.thread_names.values()}


@pytest.mark.parametrize("path", sorted(TRACES.glob("*.json.gz")), ids=lambda path: path.name)
def test_in_the_real_traces_only_the_names_of_their_communication_backends_match(path):
    # These traces communicate through NCCL or gloo alone, but for the B200's vLLM rank, which all-reduces through
    # symmetric memory too (symm_mem, multimem kernels, vLLM's device communicators): no other name there is
    # communication.
    names = all_names(path)
    found = {name for name in names if patterns.COMMUNICATION.search(name)}
    backends = "nccl|gloo|symm_mem|multimem|custom_all_reduce"
    assert found == {name for name in names if re.search(backends, name, re.IGNORECASE)}


@pytest.mark.parametrize("path", sorted(TRACES.glob("*.json.gz")), ids=lambda path: path.name)
def test_communication_marks_let_through_every_name_its_pattern_matches(path):
    # The marks only spare the expression the names that cannot match it: they change no answer.
    unmarked = re.compile(patterns.COMMUNICATION.pattern.pattern)
    names = all_names(path) | {name for name, _, _ in OTHER_COMMUNICATION}
    assert {name for name in names if patterns.COMMUNICATION.search(name)} == {
        name for name in names if unmarked.search(name.lower())}


@pytest.mark.parametrize("name", [name for name, _, _ in OTHER_COMMUNICATION[:4]])
def test_a_dispatch_kernel_beside_a_gemm_is_communication_half_hidden_by_it(name):
    # Before, only NCCL, RCCL and gloo were communication: DeepEP's dispatch counted as computation.
    t = make(gpu(name, 0, 100, stream=20), gpu("sm90_xmma_gemm_bf16bf16_bf16f32_f32_tn_n_tilesize64x64x64", 50, 100))
    found = communication.communication(t)
    assert (found["kernels"], found["kernel_us"], found["compute_us"]) == (1, 100, 100)
    assert (found["overlapped_us"], found["exposed_us"], found["overlap_pct"]) == (50, 50, 50)


def kernels(path):
    loaded = trace.load(path)
    return loaded, loaded.kind == KIND["kernel"]


@pytest.mark.parametrize("path", sorted(TRACES.glob("*.json.gz")), ids=lambda path: path.name)
def test_every_kernel_of_the_real_traces_is_in_one_family_and_the_shares_add_up(path):
    loaded, mask = kernels(path)
    rows = family_breakdown(loaded, mask)
    assert sum(row["count"] for row in rows) == mask.sum()
    assert sum(row["time_us"] for row in rows) == pytest.approx(loaded.dur[mask].sum())
    if mask.any():
        assert sum(row["share_pct"] for row in rows) == pytest.approx(100)
    for row in rows:
        for split in ("libraries_us", "precision_us", "tensor_cores_us", "backends_us", "kinds_us"):
            assert not row[split] or sum(row[split].values()) == pytest.approx(row["time_us"])
    # Names that say what they are land in their family.
    for name in {loaded.names[code] for code in np.unique(loaded.name[mask]).tolist()}:
        lowered = name.lower()
        if lowered.startswith("triton_"):
            assert kernel_family(name).family == "triton", name
        if "nccl" in lowered:
            assert kernel_family(name).family == "communication", name
        if re.search(r"(?<!fb)gemm", lowered) and "cudnn" not in lowered and "conv" not in lowered:
            assert kernel_family(name).family == "gemm", name
        if "elementwise_kernel" in lowered:
            assert kernel_family(name).family in ("elementwise", "copy"), name


def test_the_a100_16_rank_trace_has_its_gemms_found_by_library_and_core():
    loaded, mask = kernels(TRACES / "a100_80gb_nccl_16rank_rank0.json.gz")
    rows = {row["family"]: row for row in family_breakdown(loaded, mask)}
    gemm = rows["gemm"]
    assert gemm["count"] > 0 and {"CUTLASS", "cuBLAS"} <= set(gemm["libraries_us"])
    assert gemm["tensor_cores_us"]["yes"] > 0 and "tf32" in gemm["precision_us"]
    assert rows["communication"]["libraries_us"].keys() == {"NCCL"}
    sentence = family_sentence(list(rows.values()))
    assert sentence is not None and "in GEMMs" in sentence and "communication (NCCL)" in sentence


def test_the_mi250_trace_decodes_its_cijk_kernels_as_tensile_gemms_on_matrix_cores():
    loaded, mask = kernels(TRACES / "mi250_rocm.json.gz")
    gemm = next(row for row in family_breakdown(loaded, mask) if row["family"] == "gemm")
    cijk = mask & np.array([name.startswith("Cijk_") for name in loaded.names])[loaded.name]
    assert gemm["count"] == cijk.sum() > 0
    assert gemm["libraries_us"].keys() == {"hipBLASLt/Tensile"}
    assert gemm["tensor_cores_us"].keys() == {"yes"}


def synthetic(*kernels_us):
    """A trace of one kernel after another, each (name, µs)."""
    events, now = [], 0.0
    for name, dur in kernels_us:
        events.append(gpu(name, now, dur))
        now += dur
    return make(*events)


def sentence_of(*kernels_us):
    t = synthetic(*kernels_us)
    return family_sentence(family_breakdown(t, t.kind == KIND["kernel"]))


BF16_GEMM = "sm90_xmma_gemm_bf16bf16_bf16f32_f32_tn_n_tilesize128x128x64_warpgroupsize1x1x1"
TF32_GEMM = "void cutlass::Kernel<cutlass_80_tensorop_s1688gemm_64x64_16x6_nn_align4>"
FLASH = "void pytorch_flash::flash_fwd_kernel<pytorch_flash::Flash_fwd_kernel_traits<cutlass::bfloat16_t> >"
ADD = "void at::native::vectorized_elementwise_kernel<4, at::native::CUDAFunctor_add<float> >"


def test_the_sentence_says_all_only_of_all():
    assert sentence_of((BF16_GEMM, 62), (FLASH, 21), (ADD, 9), ("spin_kernel", 8)) == (
        "62% of kernel time in GEMMs, all on tensor cores in bf16; 21% in attention (flash); "
        "9% in elementwise kernels; 8% in other kernels.")
    assert sentence_of((TF32_GEMM, 83), ("ampere_sgemm_128x64_nn", 17)) == (
        "100% of kernel time in GEMMs, 83% of it on tensor cores, in tf32 (83%) and fp32 (17%).")
    # 99.6% is not all, and is not rounded up to 100%.
    assert sentence_of((TF32_GEMM, 996), ("ampere_sgemm_128x64_nn", 4)) == (
        "100% of kernel time in GEMMs, 99% of it on tensor cores, in tf32 (99%).")


def test_the_sentence_says_what_the_names_do_not():
    assert sentence_of(("nvjet_tst_128x256_64x4_1x2_h_bz_coopA_NNT", 10)) == (
        "100% of kernel time in GEMMs, all on tensor cores, precision not in the names.")
    assert sentence_of(("my_attention_kernel", 10)) == "100% of kernel time in attention."
    assert sentence_of(("triton_poi_fused_add_0", 6), ("triton_red_fused_sum_1", 4)) == (
        "100% of kernel time in Triton kernels (pointwise 60%, reduction 40%).")


def test_the_sentence_names_the_four_largest_families_of_at_least_one_percent():
    assert sentence_of((BF16_GEMM, 50), (ADD, 20), (FLASH, 15), ("spin", 10), ("triton_poi_fused_0", 5)) == (
        "50% of kernel time in GEMMs, all on tensor cores in bf16; 20% in elementwise kernels; "
        "15% in attention (flash); 10% in other kernels.")
    assert sentence_of((BF16_GEMM, 99.5), ("ncclKernel_AllReduce", 0.5)) == (
        "99% of kernel time in GEMMs, all on tensor cores in bf16.")


def test_no_kernel_time_has_no_sentence():
    empty = synthetic((BF16_GEMM, 10))
    assert family_breakdown(empty, np.zeros(len(empty), dtype=bool)) == []
    assert family_sentence([]) is None
    idle = synthetic((BF16_GEMM, 0))
    rows = family_breakdown(idle, idle.kind == KIND["kernel"])
    assert rows[0]["share_pct"] == 0 and family_sentence(rows) is None


def test_each_distinct_name_is_decoded_once(monkeypatch):
    asked = []

    def counted(name):
        asked.append(name)
        return kernel_family(name)

    monkeypatch.setattr(families, "kernel_family", counted)
    t = synthetic(*[(BF16_GEMM, 1), (ADD, 1)] * 50)
    rows = family_breakdown(t, t.kind == KIND["kernel"])
    assert sorted(asked) == sorted([ADD, BF16_GEMM])
    assert [(row["family"], row["count"], row["time_us"]) for row in rows] == [("elementwise", 50, 50),
                                                                              ("gemm", 50, 50)]
