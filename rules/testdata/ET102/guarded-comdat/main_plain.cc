// Uses nothing of the plugin: the registration is lost with the member.
void list_plugins();
int main() { list_plugins(); }
