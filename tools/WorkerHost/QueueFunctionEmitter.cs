using System.Reflection;
using System.Reflection.Emit;
using Microsoft.Azure.WebJobs;

namespace WorkerHost;

/// <summary>Emits one WebJobs function per queue-triggered worker function, as the host's FunctionGenerator does, so the
/// official Storage Queues extension listens, retries and poisons exactly as under the real host.</summary>
internal static class QueueFunctionEmitter
{
    public static Type Emit(IEnumerable<WorkerFunction> functions)
    {
        var assembly = AssemblyBuilder.DefineDynamicAssembly(new AssemblyName("WorkerHost.Functions"), AssemblyBuilderAccess.Run);
        var type = assembly.DefineDynamicModule("WorkerHost.Functions")
            .DefineType("WorkerHost.Functions", TypeAttributes.Public | TypeAttributes.Class | TypeAttributes.Abstract | TypeAttributes.Sealed);
        var invoke = typeof(QueueInvoker).GetMethod(nameof(QueueInvoker.InvokeAsync))!;
        foreach (var function in functions)
        {
            var method = type.DefineMethod(function.Name, MethodAttributes.Public | MethodAttributes.Static, typeof(Task), [typeof(ParameterBindingData), typeof(CancellationToken)]);
            method.SetCustomAttribute(new CustomAttributeBuilder(typeof(FunctionNameAttribute).GetConstructor([typeof(string)])!, [function.Name]));

            // ParameterBindingData because the binding has properties.supportsDeferredBinding (GeneralScriptBindingProvider).
            var message = method.DefineParameter(1, ParameterAttributes.None, function.TriggerName);
            var trigger = typeof(QueueTriggerAttribute);
            var connection = Json.Text(function.Trigger, "connection");
            message.SetCustomAttribute(new CustomAttributeBuilder(
                trigger.GetConstructor([typeof(string)])!,
                [Json.Text(function.Trigger, "queueName") ?? ""],
                connection is null ? [] : [trigger.GetProperty(nameof(QueueTriggerAttribute.Connection))!],
                connection is null ? [] : [connection]));
            method.DefineParameter(2, ParameterAttributes.None, "cancellationToken");

            var il = method.GetILGenerator();
            il.Emit(OpCodes.Ldstr, function.Name);
            il.Emit(OpCodes.Ldarg_0);
            il.Emit(OpCodes.Ldarg_1);
            il.Emit(OpCodes.Call, invoke);
            il.Emit(OpCodes.Ret);
        }

        return type.CreateType();
    }
}
