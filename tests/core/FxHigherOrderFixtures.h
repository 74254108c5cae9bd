#pragma once
// print_readable dumps of higher-order ops as PyTorch 2.6 writes them
// (torch.compile with a backend that saves gm.print_readable(); AOT graphs
// from aot_module_simplified's forward compiler; the triton wrappers from an
// FX graph calling them, as Dynamo records a user kernel), with the model's
// path replaced by /m/model.py. Used by io_fx_higher_order_tests.cpp.

namespace fusebox::fxtest {

// torch.cond(x.sum() > 0, lambda x: x.sin() + 1, lambda x: x.cos() * 2, [x])
inline const char *kCond = R"FX(class GraphModule(torch.nn.Module):
    def forward(self, L_x_: "f32[4]"):
        l_x_ = L_x_
        
         # File: /m/model.py:17 in forward, code: return torch.cond(x.sum() > 0, t, f, [x])
        sum_1: "f32[]" = l_x_.sum()
        gt: "b8[]" = sum_1 > 0;  sum_1 = None
        
         # File: /usr/lib/python3/dist-packages/torch/_higher_order_ops/cond.py:144 in cond, code: return cond_op(pred, true_fn, false_fn, operands)
        cond_true_0 = self.cond_true_0
        cond_false_0 = self.cond_false_0
        cond = torch.ops.higher_order.cond(gt, cond_true_0, cond_false_0, [l_x_]);  gt = cond_true_0 = cond_false_0 = l_x_ = None
        getitem: "f32[4]" = cond[0];  cond = None
        return (getitem,)
        
    class cond_true_0(torch.nn.Module):
        def forward(self, l_x_):
            l_x__1 = l_x_
            
             # File: /m/model.py:15 in t, code: def t(x): return x.sin() + 1
            sin: "f32[4]" = l_x__1.sin();  l_x__1 = None
            add: "f32[4]" = sin + 1;  sin = None
            return (add,)
            
    class cond_false_0(torch.nn.Module):
        def forward(self, l_x_):
            l_x__1 = l_x_
            
             # File: /m/model.py:16 in f, code: def f(x): return x.cos() * 2
            cos: "f32[4]" = l_x__1.cos();  l_x__1 = None
            mul: "f32[4]" = cos * 2;  cos = None
            return (mul,)
            )FX";

// while_loop(lambda i, x: i < 3, lambda i, x: (i + 1, x * 2), (torch.tensor(0), x))
inline const char *kWhileLoop = R"FX(class GraphModule(torch.nn.Module):
    def forward(self, L_x_: "f32[4]"):
        l_x_ = L_x_
        
         # File: /m/model.py:25 in forward, code: return torch._higher_order_ops.while_loop(c, b, (torch.tensor(0), x))
        child: "i64[]" = torch.tensor(0)
        
         # File: /usr/lib/python3/dist-packages/torch/_higher_order_ops/while_loop.py:135 in while_loop, code: return while_loop_op(flat_cond_fn, flat_body_fn, tuple(flat_inputs), tuple())
        cond_fn_0 = self.cond_fn_0
        body_fn_0 = self.body_fn_0
        while_loop = torch.ops.higher_order.while_loop(cond_fn_0, body_fn_0, (child, l_x_), ());  cond_fn_0 = body_fn_0 = child = l_x_ = None
        getitem: "i64[]" = while_loop[0]
        getitem_1: "f32[4]" = while_loop[1];  while_loop = None
        return (getitem, getitem_1)
        
    class cond_fn_0(torch.nn.Module):
        def forward(self, child: "i64[]", l_x_: "f32[4]"):
             # File: /m/model.py:23 in c, code: def c(i, x): return i < 3
            lt: "b8[]" = child < 3;  child = None
            return lt
            
    class body_fn_0(torch.nn.Module):
        def forward(self, child: "i64[]", l_x_: "f32[4]"):
             # File: /m/model.py:24 in b, code: def b(i, x): return i + 1, x * 2
            child_1: "i64[]" = child + 1;  child = None
            child_2: "f32[4]" = l_x_ * 2;  l_x_ = None
            return (child_1, child_2)
            )FX";

// torch.utils.checkpoint(lambda y: self.lin(y).relu(), x, use_reentrant=False)
inline const char *kCheckpoint = R"FX(class GraphModule(torch.nn.Module):
    def forward(self, L_x_: "f32[2, 4]", L_self_modules_lin_parameters_weight_: "f32[4, 4]", L_self_modules_lin_parameters_bias_: "f32[4]"):
        l_x_ = L_x_
        l_self_modules_lin_parameters_weight_ = L_self_modules_lin_parameters_weight_
        l_self_modules_lin_parameters_bias_ = L_self_modules_lin_parameters_bias_
        
         # File: /m/model.py:35 in forward, code: return checkpoint(lambda y: self.lin(y).relu(), x, use_reentrant=False)
        wrap_body_0 = self.wrap_body_0
        tag_activation_checkpoint = torch.ops.higher_order.tag_activation_checkpoint(wrap_body_0, l_x_, l_self_modules_lin_parameters_weight_, l_self_modules_lin_parameters_bias_, use_reentrant = False);  wrap_body_0 = l_x_ = l_self_modules_lin_parameters_weight_ = l_self_modules_lin_parameters_bias_ = None
        getitem: "f32[2, 4]" = tag_activation_checkpoint[0];  tag_activation_checkpoint = None
        return (getitem,)
        
    class wrap_body_0(torch.nn.Module):
        def forward(self, l_x_: "f32[2, 4]", l_self_modules_lin_parameters_weight_: "f32[4, 4]", l_self_modules_lin_parameters_bias_: "f32[4]"):
             # File: /m/model.py:35 in <lambda>, code: return checkpoint(lambda y: self.lin(y).relu(), x, use_reentrant=False)
            linear: "f32[2, 4]" = torch._C._nn.linear(l_x_, l_self_modules_lin_parameters_weight_, l_self_modules_lin_parameters_bias_);  l_x_ = l_self_modules_lin_parameters_weight_ = l_self_modules_lin_parameters_bias_ = None
            relu: "f32[2, 4]" = linear.relu();  linear = None
            return (relu,)
            )FX";

// torch._higher_order_ops.wrap.wrap(lambda y: y.sin() + y, x)
inline const char *kWrap = R"FX(class GraphModule(torch.nn.Module):
    def forward(self, L_x_: "f32[4]"):
        l_x_ = L_x_
        
         # File: /m/model.py:42 in forward, code: return wrap(lambda y: y.sin() + y, x)
        wrap_body_0 = self.wrap_body_0
        wrap = torch.ops.higher_order.wrap(wrap_body_0, l_x_);  wrap_body_0 = l_x_ = None
        getitem: "f32[4]" = wrap[0];  wrap = None
        return (getitem,)
        
    class wrap_body_0(torch.nn.Module):
        def forward(self, l_x_: "f32[4]"):
             # File: /m/model.py:42 in <lambda>, code: return wrap(lambda y: y.sin() + y, x)
            sin: "f32[4]" = l_x_.sin()
            add: "f32[4]" = sin + l_x_;  sin = l_x_ = None
            return (add,)
            )FX";

// An AOT graph calling mylib::foo (mutates x) and mylib::bar (mutates out), auto_functionalized v1
inline const char *kAutoFunctionalized = R"FX(class <lambda>(torch.nn.Module):
    def forward(self, arg0_1: "f32[4]", arg1_1: "f32[4]"):
         # File: /m/model.py:23 in forward, code: x = x.clone()
        clone: "f32[4]" = torch.ops.aten.clone.default(arg0_1);  arg0_1 = None
        
         # File: /usr/lib/python3/dist-packages/torch/_library/custom_ops.py:641 in __call__, code: return self._opoverload(*args, **kwargs)
        auto_functionalized = torch.ops.higher_order.auto_functionalized(torch.ops.mylib.foo.default, x = clone, y = arg1_1);  clone = arg1_1 = None
        getitem_1: "f32[4]" = auto_functionalized[1];  auto_functionalized = None
        
         # File: /m/model.py:25 in forward, code: o = torch.empty_like(x)
        empty_like: "f32[4]" = torch.ops.aten.empty_like.default(getitem_1, pin_memory = False)
        
         # File: /usr/lib/python3/dist-packages/torch/_library/custom_ops.py:641 in __call__, code: return self._opoverload(*args, **kwargs)
        auto_functionalized_1 = torch.ops.higher_order.auto_functionalized(torch.ops.mylib.bar.default, x = getitem_1, out = empty_like);  empty_like = None
        getitem_2: "f32[4]" = auto_functionalized_1[0]
        getitem_3: "f32[4]" = auto_functionalized_1[1];  auto_functionalized_1 = None
        
         # File: /m/model.py:27 in forward, code: return x + 1, r, o
        add: "f32[4]" = torch.ops.aten.add.Tensor(getitem_1, 1);  getitem_1 = None
        return (add, getitem_2, getitem_3)
        )FX";

// The same with torch._inductor.config.enable_auto_functionalized_v2 (2.6's default)
inline const char *kAutoFunctionalizedV2 = R"FX(class <lambda>(torch.nn.Module):
    def forward(self, arg0_1: "f32[4]", arg1_1: "f32[4]"):
         # File: /m/model.py:23 in forward, code: x = x.clone()
        clone: "f32[4]" = torch.ops.aten.clone.default(arg0_1);  arg0_1 = None
        
         # File: /usr/lib/python3/dist-packages/torch/_library/custom_ops.py:641 in __call__, code: return self._opoverload(*args, **kwargs)
        auto_functionalized_v2 = torch.ops.higher_order.auto_functionalized_v2(torch.ops.mylib.foo.default, y = arg1_1, _x_base_index = 0, _all_bases = [clone]);  arg1_1 = clone = None
        getitem_1: "f32[4]" = auto_functionalized_v2[1];  auto_functionalized_v2 = None
        
         # File: /m/model.py:25 in forward, code: o = torch.empty_like(x)
        empty_like: "f32[4]" = torch.ops.aten.empty_like.default(getitem_1, pin_memory = False)
        
         # File: /usr/lib/python3/dist-packages/torch/_library/custom_ops.py:641 in __call__, code: return self._opoverload(*args, **kwargs)
        auto_functionalized_v2_1 = torch.ops.higher_order.auto_functionalized_v2(torch.ops.mylib.bar.default, x = getitem_1, _out_base_index = 0, _all_bases = [empty_like]);  empty_like = None
        getitem_2: "f32[4]" = auto_functionalized_v2_1[0]
        getitem_3: "f32[4]" = auto_functionalized_v2_1[1];  auto_functionalized_v2_1 = None
        
         # File: /m/model.py:27 in forward, code: return x + 1, r, o
        add: "f32[4]" = torch.ops.aten.add.Tensor(getitem_1, 1);  getitem_1 = None
        return (add, getitem_2, getitem_3)
        )FX";

// A user Triton kernel in a Dynamo graph
inline const char *kTritonMutation = R"FX(class GraphModule(torch.nn.Module):
    def forward(self, x, y):
        # No stacktrace found for following nodes
        empty_like_default = torch.ops.aten.empty_like.default(x)
        triton_kernel_wrapper_mutation = torch.ops.higher_order.triton_kernel_wrapper_mutation(kernel_idx = 0, constant_args_idx = 0, grid = [(4, 1, 1)], tma_descriptor_metadata = {}, kwargs = {'in_ptr0': x, 'in_ptr1': y, 'out_ptr': empty_like_default});  x = y = triton_kernel_wrapper_mutation = None
        return (empty_like_default,)
        )FX";

// ... and functionalised in an AOT graph (tensors_to_clone; a getitem by key)
inline const char *kTritonFunctional = R"FX(class GraphModule(torch.nn.Module):
    def forward(self, arg0_1, arg1_1):
        # No stacktrace found for following nodes
        empty_like_default = torch.ops.aten.empty_like.default(arg0_1)
        triton_kernel_wrapper_functional = torch.ops.higher_order.triton_kernel_wrapper_functional(kernel_idx = 0, constant_args_idx = 0, grid = [(4, 1, 1)], tma_descriptor_metadata = {}, kwargs = {'in_ptr0': arg0_1, 'in_ptr1': arg1_1, 'out_ptr': empty_like_default}, tensors_to_clone = ['out_ptr']);  arg0_1 = arg1_1 = empty_like_default = None
        getitem = triton_kernel_wrapper_functional['out_ptr'];  triton_kernel_wrapper_functional = None
        return (getitem,)
        )FX";

// A cond whose true branch is a cond: the inner branches nest in its class
inline const char *kNestedCond = R"FX(class GraphModule(torch.nn.Module):
    def forward(self, L_y_: "f32[4]", L_x_: "f32[4]"):
        l_y_ = L_y_
        l_x_ = L_x_
        
         # File: /m/model.py:10 in forward, code: return torch.cond(y.sum() > 0, t, f, [x])
        sum_1: "f32[]" = l_y_.sum();  l_y_ = None
        gt: "b8[]" = sum_1 > 0;  sum_1 = None
        
         # File: /usr/lib/python3/dist-packages/torch/_higher_order_ops/cond.py:144 in cond, code: return cond_op(pred, true_fn, false_fn, operands)
        cond_true_1 = self.cond_true_1
        cond_false_1 = self.cond_false_1
        cond = torch.ops.higher_order.cond(gt, cond_true_1, cond_false_1, [l_x_]);  gt = cond_true_1 = cond_false_1 = l_x_ = None
        getitem: "f32[4]" = cond[0];  cond = None
        return (getitem,)
        
    class cond_true_1(torch.nn.Module):
        def forward(self, l_x_):
            l_x__1 = l_x_
            
             # File: /m/model.py:8 in t, code: def t(x): return torch.cond(x.mean() > 0, inner_t, inner_f, [x])
            mean: "f32[]" = l_x__1.mean()
            gt: "b8[]" = mean > 0;  mean = None
            
             # File: /usr/lib/python3/dist-packages/torch/_higher_order_ops/cond.py:144 in cond, code: return cond_op(pred, true_fn, false_fn, operands)
            cond_true_0 = self.cond_true_0
            cond_false_0 = self.cond_false_0
            cond = torch.ops.higher_order.cond(gt, cond_true_0, cond_false_0, [l_x__1]);  gt = cond_true_0 = cond_false_0 = l_x__1 = None
            getitem: "f32[4]" = cond[0];  cond = None
            return (getitem,)
            
        class cond_true_0(torch.nn.Module):
            def forward(self, l_x_):
                l_x__1 = l_x_
                
                 # File: /m/model.py:6 in inner_t, code: def inner_t(x): return x + 1
                add: "f32[4]" = l_x__1 + 1;  l_x__1 = None
                return (add,)
                
        class cond_false_0(torch.nn.Module):
            def forward(self, l_x_):
                l_x__1 = l_x_
                
                 # File: /m/model.py:7 in inner_f, code: def inner_f(x): return x - 1
                sub: "f32[4]" = l_x__1 - 1;  l_x__1 = None
                return (sub,)
                
    class cond_false_1(torch.nn.Module):
        def forward(self, l_x_):
            l_x__1 = l_x_
            
             # File: /m/model.py:9 in f, code: def f(x): return x * 3
            mul: "f32[4]" = l_x__1 * 3;  l_x__1 = None
            return (mul,)
            )FX";

} // namespace fusebox::fxtest
