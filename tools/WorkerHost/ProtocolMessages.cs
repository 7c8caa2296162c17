using System.Text.Json;
using Microsoft.Azure.Functions.Worker.Grpc.Messages;

namespace WorkerHost;

/// <summary>Conversions between the worker's metadata and the requests the host sends (GrpcWorkerChannel in azure-functions-host).</summary>
internal static class ProtocolMessages
{
    /// <summary>The host's version we claim; the dotnet worker does not read the init request, this is for its logs.</summary>
    public const string HostVersion = "4.1040.0";

    public static WorkerFunction ToFunction(RpcFunctionMetadata metadata)
    {
        var bindings = metadata.RawBindings.Select(raw =>
        {
            using var document = JsonDocument.Parse(raw);
            return document.RootElement.Clone();
        }).ToList();
        return new WorkerFunction(metadata.Name, metadata.FunctionId, metadata.EntryPoint, metadata.ScriptFile, metadata.Directory ?? "", bindings);
    }

    /// <summary>As GetFunctionLoadRequest: name, entry point, script file, directory and bindings (type, direction, data type) only.</summary>
    public static FunctionLoadRequest ToLoadRequest(WorkerFunction function)
    {
        var metadata = new RpcFunctionMetadata
        {
            Name = function.Name,
            EntryPoint = function.EntryPoint ?? "",
            ScriptFile = function.ScriptFile ?? "",
            Directory = function.Directory ?? "",
            IsProxy = false,
        };
        foreach (var binding in function.Bindings)
        {
            var info = new BindingInfo
            {
                Type = Json.Text(binding, "type") ?? "",
                Direction = Json.Text(binding, "direction")?.ToUpperInvariant() switch
                {
                    "OUT" => BindingInfo.Types.Direction.Out,
                    "INOUT" => BindingInfo.Types.Direction.Inout,
                    _ => BindingInfo.Types.Direction.In,
                },
            };
            if (Enum.TryParse<BindingInfo.Types.DataType>(Json.Text(binding, "dataType"), ignoreCase: true, out var dataType))
            {
                info.DataType = dataType;
            }

            metadata.Bindings[Json.Text(binding, "name") ?? ""] = info;
        }

        return new FunctionLoadRequest { FunctionId = function.FunctionId, Metadata = metadata };
    }
}
