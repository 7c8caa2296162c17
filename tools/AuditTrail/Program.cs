using Azure;
using Azure.Identity;
using AuditTrail;

// The audit trail checker (docs/operations.md, "Checking the audit trail"): `verify` walks every stream and anchor and
// names the first break; `find` prints the signed records for a webhook id or canonical SHA-256. Exit 0, 1, or 2 for a
// usage error or a store that cannot be read.
CommandLine commandLine;
try
{
    commandLine = CommandLine.Parse(args);
}
catch (OperatorException exception)
{
    Console.Error.WriteLine(exception.Message);
    Console.Error.WriteLine(CommandLine.Usage);
    return ExitCodes.Usage;
}

try
{
    var keys = commandLine.Command == "verify" ? TrustedKeys.Load(commandLine.PublicKeys, Directory.GetCurrentDirectory()) : null;
    var store = AuditStore.Connect(commandLine);
    Console.WriteLine($"store: {store.Description}");
    if (!await store.ExistsAsync(CancellationToken.None))
    {
        throw new OperatorException($"The container {commandLine.Container} does not exist in that account.");
    }

    if (keys is not null)
    {
        Console.Write(keys.Describe());
        var verifier = new ChainVerifier(store, keys);
        try
        {
            await verifier.VerifyAsync(commandLine.Process, CancellationToken.None);
        }
        catch (ChainBreakException exception)
        {
            Console.Write(verifier.Summary.Describe());
            Console.WriteLine($"BREAK {exception.Message}");
            return ExitCodes.Failure;
        }

        Console.Write(verifier.Summary.Describe());
        Console.WriteLine("chain holds");
        return ExitCodes.Success;
    }

    var finder = new RecordFinder(store);
    int found;
    try
    {
        found = await finder.FindAsync(commandLine.Query!, commandLine.QueryIsHash, commandLine.Process, Console.Out, CancellationToken.None);
    }
    catch (ChainBreakException exception)
    {
        Console.WriteLine($"BREAK {exception.Message}");
        return ExitCodes.Failure;
    }

    Console.WriteLine($"{found} record(s) found in {finder.Streams} stream(s){(finder.Skipped > 0 ? $"; {finder.Skipped} unreadable line(s) or blob(s) skipped (run verify)" : string.Empty)}");
    return found > 0 ? ExitCodes.Success : ExitCodes.Failure;
}
catch (OperatorException exception)
{
    Console.Error.WriteLine(exception.Message);
    return ExitCodes.Usage;
}
catch (Exception exception) when (exception is RequestFailedException or AuthenticationFailedException or IOException or HttpRequestException or AggregateException or UnauthorizedAccessException)
{
    Console.Error.WriteLine($"The audit store cannot be read: {AuditStore.Describe(exception)}.");
    return ExitCodes.Usage;
}
#pragma warning disable CA1031 // The documented exits are 0, 1 and 2: whatever a store's answer makes the SDK throw is a 2, never a crash.
catch (Exception exception)
#pragma warning restore CA1031
{
    Console.Error.WriteLine($"The audit store's answer could not be read: {exception.GetType().Name}: {Printable.Clean(exception.Message)}.");
    return ExitCodes.Usage;
}
