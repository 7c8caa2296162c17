namespace FunctionApp.Queues;

/// <summary>A blob named by container and blob name (never a URL or SAS: consumers use their own credentials).</summary>
/// <param name="Container">The container name.</param>
/// <param name="Blob">The blob name within the container.</param>
public sealed record BlobReference(string Container, string Blob);
