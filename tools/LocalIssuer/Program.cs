using System.Net;
using LocalIssuer;
using Microsoft.AspNetCore.Hosting.Server;
using Microsoft.AspNetCore.Hosting.Server.Features;

// The local OpenID issuer: Entra's metadata, key set and client-credentials token endpoint for the local tenant, on
// loopback only (it signs whatever it is asked for, so nothing off this machine may reach it).
IssuerCommandLine commandLine;
try
{
    commandLine = IssuerCommandLine.Parse(args);
}
catch (ArgumentException exception)
{
    Console.Error.WriteLine(exception.Message);
    return 2;
}

var builder = WebApplication.CreateSlimBuilder(new WebApplicationOptions { Args = [] });
builder.Logging.SetMinimumLevel(LogLevel.Warning);
builder.WebHost.ConfigureKestrel(kestrel =>
{
    kestrel.AddServerHeader = false;
    // A backstop only: the token endpoint reads at most TokenRequest.MaxFormBytes + 1 and answers 400 past that; this
    // bounds what Kestrel drains after such an answer.
    kestrel.Limits.MaxRequestBodySize = 64 * 1024;
    kestrel.Listen(IPAddress.Loopback, commandLine.Port);
});
builder.Services.AddSingleton(TimeProvider.System);
builder.Services.AddSingleton<SigningKey>();
builder.Services.AddSingleton<TokenMinter>();

await using var app = builder.Build();
IssuerEndpoints.Map(app);
await app.StartAsync();

var address = app.Services.GetRequiredService<IServer>().Features.Get<IServerAddressesFeature>()!.Addresses.First().TrimEnd('/');
Console.WriteLine($"LocalIssuer ready: {address}/{LocalTenant.TenantId}/v2.0 (pid {Environment.ProcessId}; Ctrl-C stops)");
await app.WaitForShutdownAsync();
return 0;
